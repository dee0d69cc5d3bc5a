#!/usr/bin/python3
"""The PyTorch peer of bench_train_step: the model of docs/theory.md, section 3 (float32), written
as a PyTorch user would (every position of every layer computed), timed per training step:
forward, MSE, backward, gradient clipping and AdamW (foreach). The batch is drawn once, so data
generation is not timed. Prints one JSON line per thread count and the best.

Usage: /usr/bin/python3 bench/torch_train_step.py T d E h1,h2 W R batch steps
"""
import json
import math
import resource
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Layer(nn.Module):
    def __init__(self, E, h, W):
        super().__init__()
        self.h, self.n = h, E // h
        self.q = nn.Linear(E, E, bias=False)
        self.k = nn.Linear(E, E, bias=False)
        self.v = nn.Linear(E, E, bias=False)
        self.o = nn.Linear(E, E)
        self.w1 = nn.Linear(E, W)
        self.w2 = nn.Linear(W, E)

    def forward(self, z):
        B, S, E = z.shape
        split = lambda u: u.view(B, S, self.h, self.n).transpose(1, 2)
        q, k, v = split(self.q(z)), split(self.k(z)), split(self.v(z))
        att = torch.softmax((q @ k.transpose(-1, -2)) / math.sqrt(self.n), dim=-1)
        z = z + self.o((att @ v).transpose(1, 2).reshape(B, S, E))
        return z + self.w2(F.gelu(self.w1(z), approximate="tanh"))


class Model(nn.Module):
    def __init__(self, d, E, heads, W, R):
        super().__init__()
        self.embed = nn.Linear(d, E)
        self.token = nn.Parameter(torch.randn(1, 1, E))
        self.layers = nn.ModuleList(Layer(E, h, W) for h in heads)
        self.r1 = nn.Linear(E, R)
        self.r2 = nn.Linear(R, 1)

    def forward(self, x):
        z = self.embed(x)
        z = torch.cat([z, self.token.expand(x.shape[0], 1, -1)], dim=1)
        for layer in self.layers:
            z = layer(z)
        return self.r2(F.gelu(self.r1(z[:, -1]), approximate="tanh"))[:, 0]


def time_steps(threads, T, d, E, heads, W, R, batch, steps):
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    model = Model(d, E, heads, W, R)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    rest = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                             {"params": rest, "weight_decay": 0.0}], lr=1e-3, foreach=True)
    x = torch.randn(batch, T, d)
    y = torch.randn(batch)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    for _ in range(3):
        step()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


def main():
    T, d, E = (int(a) for a in sys.argv[1:4])
    heads = [int(h) for h in sys.argv[4].split(",")]
    W, R, batch, steps = (int(a) for a in sys.argv[5:9])
    results = {}
    for threads in (1, 2):
        results[threads] = time_steps(threads, T, d, E, heads, W, R, batch, steps)
        print(json.dumps({"threads": threads, "ms_per_step": 1e3 * results[threads]}), flush=True)
    best = min(results, key=results.get)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"best_threads": best, "ms_per_step": 1e3 * results[best],
                      "torch": torch.__version__, "blas": torch.__config__.show().count("OpenBLAS") > 0,
                      "peak_rss_mib": peak_mib}))


if __name__ == "__main__":
    main()
