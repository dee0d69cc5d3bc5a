#!/usr/bin/python3
"""Writes tests/data/torch_reference.json: the Transformer of docs/theory.md, section 3, in PyTorch
(float64), for the C++ test that checks the hand-written model against it.

The PyTorch model computes every position of every layer; the C++ model computes only what
reaches the readout in the last layer, so agreement also checks that shortcut. Keys and values
range over the T input tokens: the readout token queries and is never a key. The encoder is
linear (the position added after it) or a token-wise ReLU MLP fed [x(t); p(t)]. Stored per
configuration: parameters (named as in numeric::ParameterLayout, shape [rows, cols], row-major
data), inputs, targets, predictions, the MSE loss, its gradient per tensor, and the losses and
final parameters of five AdamW steps with warm-up, cosine schedule and clipping.

Run offline with Debian's python3-torch (1.13): /usr/bin/python3 bench/make_reference_fixture.py
"""
import json
import math
import sys

import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)

CONFIGS = [
    dict(name="plain_sinusoidal_gelu_mlp_encoder", T=5, d=3, E=8, heads=[2, 4], head_dim=0, W=12,
         R=10, encoder="mlp", encoder_width=7, activation="gelu", positional="sinusoidal",
         pre_ln=False, scale=0.0),
    dict(name="pre_ln_learned_relu_fixed_n", T=4, d=2, E=6, heads=[3, 1, 2], head_dim=4, W=9, R=7,
         encoder="linear", encoder_width=0, activation="relu", positional="learned", pre_ln=True,
         scale=0.8),
    dict(name="learned_mlp_encoder_one_layer", T=6, d=2, E=6, heads=[2], head_dim=0, W=5, R=4,
         encoder="mlp", encoder_width=0, activation="gelu", positional="learned", pre_ln=False,
         scale=0.0),
]
BATCH = 4
STEPS = 5
ADAM = dict(lr=1e-2, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)
WARMUP, MIN_RATIO, CLIP = 2, 0.1, 1.0


def schedule(step):
    """numeric::Schedule::at: linear warm-up, then cosine to MIN_RATIO at the last step."""
    peak = ADAM["lr"]
    if step < WARMUP:
        return peak * (step + 1) / WARMUP
    span = max(1, STEPS - WARMUP - 1)
    progress = min(1.0, (step - WARMUP) / span)
    floor = peak * MIN_RATIO
    return floor + 0.5 * (peak - floor) * (1 + math.cos(math.pi * progress))


def layout(c):
    """(name, rows, cols, decay) in numeric::ParameterLayout's order."""
    E, out = c["E"], []
    if c["encoder"] == "linear":
        out += [("embed.weight", E, c["d"], True), ("embed.bias", E, 1, False)]
    else:
        w = encoder_width(c)
        out.append(("embed.w1", w, c["d"], True))
        if c["positional"] != "none":
            out.append(("embed.w1_position", w, E, True))
        out += [("embed.b1", w, 1, False), ("embed.w2", E, w, True), ("embed.b2", E, 1, False)]
    if c["positional"] == "learned":
        out.append(("embed.position", E, c["T"], False))
    out.append(("embed.readout_token", E, 1, False))
    for l, h in enumerate(c["heads"]):
        p = f"layer{l + 1}."
        hn = h * (c["head_dim"] or E // h)
        if c["pre_ln"]:
            out += [(p + "ln1.gain", E, 1, False), (p + "ln1.bias", E, 1, False)]
        out += [(p + "attn.q", hn, E, True), (p + "attn.k", hn, E, True),
                (p + "attn.v", hn, E, True), (p + "attn.o", E, hn, True),
                (p + "attn.o_bias", E, 1, False)]
        if c["pre_ln"]:
            out += [(p + "ln2.gain", E, 1, False), (p + "ln2.bias", E, 1, False)]
        out += [(p + "ffn.w1", c["W"], E, True), (p + "ffn.b1", c["W"], 1, False),
                (p + "ffn.w2", E, c["W"], True), (p + "ffn.b2", E, 1, False)]
    if c["pre_ln"]:
        out += [("final_ln.gain", E, 1, False), ("final_ln.bias", E, 1, False)]
    out += [("readout.w1", c["R"], E, True), ("readout.b1", c["R"], 1, False),
            ("readout.w2", 1, c["R"], True), ("readout.b2", 1, 1, False)]
    return out


def encoder_width(c):
    """numeric::ModelConfig::encoder_hidden: 0 means the FFN width."""
    return c["encoder_width"] or c["W"]


def sinusoid(E, T):
    pe = torch.zeros(E, T)
    for p in range(T):
        for r in range(E):
            angle = (p + 1) * 10000.0 ** (-(r - r % 2) / E)
            pe[r, p] = math.sin(angle) if r % 2 == 0 else math.cos(angle)
    return pe


def forward(c, P, x):
    act = (lambda u: F.gelu(u, approximate="tanh")) if c["activation"] == "gelu" else F.relu
    B, T, E = x.shape[0], c["T"], c["E"]
    ln = lambda u, g, b: F.layer_norm(u, (E,), P[g][:, 0], P[b][:, 0], eps=1e-5)
    pos = {"learned": lambda: P["embed.position"], "sinusoidal": lambda: sinusoid(E, T),
           "none": lambda: None}[c["positional"]]()  # (E, T)
    if c["encoder"] == "linear":
        z = x @ P["embed.weight"].T + P["embed.bias"][:, 0]
        if pos is not None:
            z = z + pos.T
    else:
        # The token-wise MLP on [x(t); p(t)]: the position is an input, not added after.
        inp, w1 = x, P["embed.w1"]
        if pos is not None:
            inp = torch.cat([x, pos.T.expand(B, T, E)], dim=2)
            w1 = torch.cat([w1, P["embed.w1_position"]], dim=1)
        hidden = F.relu(inp @ w1.T + P["embed.b1"][:, 0])
        z = hidden @ P["embed.w2"].T + P["embed.b2"][:, 0]
    z = torch.cat([z, P["embed.readout_token"][:, 0].expand(B, 1, E)], dim=1)  # (B, S, E)
    S = T + 1
    for l, h in enumerate(c["heads"]):
        p = f"layer{l + 1}."
        n = c["head_dim"] or E // h
        scale = c["scale"] or 1 / math.sqrt(n)
        a1 = ln(z, p + "ln1.gain", p + "ln1.bias") if c["pre_ln"] else z
        split = lambda u: u.view(B, S, h, n).transpose(1, 2)  # (B, h, S, n)
        q, k, v = (split(a1 @ P[p + "attn." + w].T) for w in "qkv")
        # Keys and values over the T input tokens only: the readout queries, is never a key.
        k, v = k[:, :, :T, :], v[:, :, :T, :]
        att = torch.softmax(scale * q @ k.transpose(-1, -2), dim=-1)
        ctx = (att @ v).transpose(1, 2).reshape(B, S, h * n)
        z = z + ctx @ P[p + "attn.o"].T + P[p + "attn.o_bias"][:, 0]
        a2 = ln(z, p + "ln2.gain", p + "ln2.bias") if c["pre_ln"] else z
        z = z + act(a2 @ P[p + "ffn.w1"].T + P[p + "ffn.b1"][:, 0]) @ P[p + "ffn.w2"].T \
            + P[p + "ffn.b2"][:, 0]
    r = z[:, T, :]
    if c["pre_ln"]:
        r = ln(r, "final_ln.gain", "final_ln.bias")
    g = act(r @ P["readout.w1"].T + P["readout.b1"][:, 0])
    return (g @ P["readout.w2"].T)[:, 0] + P["readout.b2"][0, 0]


def dump(t):
    return {"shape": list(t.shape) if t.dim() == 2 else [t.shape[0], 1],
            "data": t.detach().reshape(-1).tolist()}


def make(c, gen):
    P = {}
    for name, rows, cols, _ in layout(c):
        t = 0.4 * torch.randn(rows, cols, generator=gen)
        if name.endswith(".gain"):
            t = 1 + 0.1 * t
        P[name] = t.requires_grad_(True)
    x = torch.randn(BATCH, c["T"], c["d"], generator=gen)
    y = torch.randn(BATCH, generator=gen)
    pred = forward(c, P, x)
    loss = ((pred - y) ** 2).mean()
    loss.backward()
    record = {"config": c, "inputs": x.reshape(-1).tolist(), "targets": y.tolist(),
              "parameters": {k: dump(v) for k, v in P.items()},
              "predictions": pred.tolist(), "loss": loss.item(),
              "gradients": {k: dump(v.grad) for k, v in P.items()}}
    decay = [P[name] for name, _, _, dec in layout(c) if dec]
    rest = [P[name] for name, _, _, dec in layout(c) if not dec]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": ADAM["weight_decay"]},
                             {"params": rest, "weight_decay": 0.0}],
                            lr=ADAM["lr"], betas=ADAM["betas"], eps=ADAM["eps"], foreach=False)
    losses = []
    for step in range(STEPS):
        opt.zero_grad()
        loss = ((forward(c, P, x) - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        torch.nn.utils.clip_grad_norm_(list(P.values()), CLIP)
        for group in opt.param_groups:
            group["lr"] = schedule(step)
        opt.step()
    record["adamw"] = {"steps": STEPS, "lr": ADAM["lr"], "beta1": ADAM["betas"][0],
                       "beta2": ADAM["betas"][1], "eps": ADAM["eps"],
                       "weight_decay": ADAM["weight_decay"], "warmup": WARMUP,
                       "min_ratio": MIN_RATIO, "clip": CLIP, "losses": losses,
                       "final_parameters": {k: dump(v) for k, v in P.items()}}
    return record


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/torch_reference.json"
    gen = torch.Generator().manual_seed(20261202)
    fixture = {"generator": f"bench/make_reference_fixture.py, torch {torch.__version__}",
               "batch": BATCH, "cases": [make(c, gen) for c in CONFIGS]}
    with open(out, "w") as f:
        json.dump(fixture, f)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
