(** * Infoflow.Bridge: from exponent facts to the asymptotic statements infoflow prints.

    infoflow decides signs of exponent gaps; each certificate proves such a sign with Coq's own
    tactics and then applies one lemma of this file to reach the asymptotic claim:

    - [eps_gap_little_o]: if a > b then eps^(-b) = o(eps^(-a)) as eps -> 0+;
    - [eps_gap_big_o]: if a <= b then eps^(-a) = O(eps^(-b)) as eps -> 0+;
    - [log_tie_break]: with the same power of 1/eps, log(1/eps)^q = o(log(1/eps)^p) when q < p;
    - [T_growth]: an eps exponent growing in T with slope s > 0 makes the ratio of the two
      rates tend to infinity as T -> infinity, for every fixed 0 < eps < 1.

    "o" is Coquelicot's [is_domin] (g = o(f) is [is_domin F f g]); "O" is [is_bigO] below. *)

From Coq Require Import Reals Lra Lia Psatz.
Set Warnings "-ambiguous-paths".
From Coquelicot Require Import Coquelicot.
Open Scope R_scope.

(** g = O(f) along the filter F. *)
Definition is_bigO {T} (F : (T -> Prop) -> Prop) (f g : T -> R) : Prop :=
  exists C : R, F (fun x => Rabs (g x) <= C * Rabs (f x)).

Lemma Rpower_pos (x y : R) : 0 < Rpower x y.
Proof. unfold Rpower. apply exp_pos. Qed.

(** x^c gets as small as one likes as x -> 0+, for c > 0. *)
Lemma Rpower_small (c e : R) :
  0 < c -> 0 < e -> exists d : posreal, forall x, 0 < x < d -> Rpower x c <= e.
Proof.
  intros Hc He.
  exists (mkposreal _ (Rpower_pos e (/ c))). simpl. intros x [Hx0 Hx].
  left.
  replace e with (Rpower (Rpower e (/ c)) c).
  - apply Rlt_Rpower_l; auto.
  - rewrite Rpower_mult, Rinv_l by lra. now apply Rpower_1.
Qed.

Lemma at_right_0_of (P : R -> Prop) (d : posreal) :
  (forall x, 0 < x < d -> P x) -> at_right 0 P.
Proof.
  intros H. exists d. intros y Hy Hpos. apply H. split; auto.
  unfold ball in Hy; simpl in Hy; unfold AbsRing_ball, abs, minus, plus, opp in Hy; simpl in Hy.
  apply Rabs_lt_between in Hy. lra.
Qed.

(** If a > b then eps^(-b) = o(eps^(-a)) as eps -> 0+. *)
Theorem eps_gap_little_o (a b : R) :
  b < a ->
  is_domin (at_right 0) (fun eps => Rpower eps (- a)) (fun eps => Rpower eps (- b)).
Proof.
  intros Hab e.
  destruct (Rpower_small (a - b) e ltac:(lra) (cond_pos e)) as [d Hd].
  apply (at_right_0_of _ d). intros x Hx.
  change (norm (Rpower x (- b))) with (Rabs (Rpower x (- b))).
  change (norm (Rpower x (- a))) with (Rabs (Rpower x (- a))).
  rewrite !Rabs_pos_eq by (left; apply Rpower_pos).
  replace (- b) with ((a - b) + - a) by ring.
  rewrite Rpower_plus.
  apply Rmult_le_compat_r; [left; apply Rpower_pos | now apply Hd].
Qed.

(** If a <= b then eps^(-a) = O(eps^(-b)) as eps -> 0+ (with constant 1, for eps <= 1). *)
Theorem eps_gap_big_o (a b : R) :
  a <= b -> is_bigO (at_right 0) (fun eps => Rpower eps (- b)) (fun eps => Rpower eps (- a)).
Proof.
  intros Hab. exists 1.
  apply (at_right_0_of _ (mkposreal 1 Rlt_0_1)). simpl. intros x [Hx0 Hx1].
  rewrite !Rabs_pos_eq by (left; apply Rpower_pos).
  replace (- a) with ((b - a) + - b) by ring.
  rewrite Rpower_plus.
  apply Rmult_le_compat_r; [left; apply Rpower_pos |].
  destruct (Req_dec (b - a) 0) as [E | E].
  - rewrite E, Rpower_O by lra. lra.
  - left. rewrite <- (Rpower_O 1) by lra.
    unfold Rpower. apply exp_increasing.
    rewrite ln_1. rewrite Rmult_0_r.
    assert (ln x < 0) by (rewrite <- ln_1; apply ln_increasing; lra).
    nra.
Qed.

(** The same exponent: each rate is O of the other (Theta). *)
Theorem eps_same_theta (a b : R) :
  a = b ->
  is_bigO (at_right 0) (fun eps => Rpower eps (- b)) (fun eps => Rpower eps (- a)) /\
  is_bigO (at_right 0) (fun eps => Rpower eps (- a)) (fun eps => Rpower eps (- b)).
Proof. intros E. split; apply eps_gap_big_o; lra. Qed.

(** The log-power tie-break: with the same power of 1/eps, the larger power of log(1/eps)
    dominates. *)
Theorem log_tie_break (a p q : R) :
  q < p ->
  is_domin (at_right 0) (fun eps => Rpower eps (- a) * Rpower (ln (/ eps)) p)
                        (fun eps => Rpower eps (- a) * Rpower (ln (/ eps)) q).
Proof.
  intros Hqp e.
  set (Y := Rpower (/ e) (/ (p - q))).
  assert (HY : 0 < Y) by apply Rpower_pos.
  apply (at_right_0_of _ (mkposreal _ (exp_pos (- Y)))). simpl. intros x [Hx0 Hx].
  assert (Hl : Y < ln (/ x)).
  { rewrite <- (ln_exp Y). apply ln_increasing; [apply exp_pos |].
    rewrite exp_Ropp in Hx. rewrite <- (Rinv_inv (exp Y)).
    apply Rinv_lt_contravar; [| exact Hx].
    apply Rmult_lt_0_compat; [exact Hx0 | apply Rinv_0_lt_compat, exp_pos]. }
  change (norm (Rpower x (- a) * Rpower (ln (/ x)) q))
    with (Rabs (Rpower x (- a) * Rpower (ln (/ x)) q)).
  change (norm (Rpower x (- a) * Rpower (ln (/ x)) p))
    with (Rabs (Rpower x (- a) * Rpower (ln (/ x)) p)).
  assert (Hpos : forall y, 0 < Rpower x (- a) * Rpower (ln (/ x)) y)
    by (intros; apply Rmult_lt_0_compat; apply Rpower_pos).
  rewrite !Rabs_pos_eq by (left; apply Hpos).
  replace q with ((q - p) + p) at 1 by ring.
  rewrite Rpower_plus.
  assert (Hsmall : Rpower (ln (/ x)) (q - p) <= e).
  { replace (q - p) with (- (p - q)) by ring. rewrite Rpower_Ropp.
    assert (Hbig : / e < Rpower (ln (/ x)) (p - q)).
    { replace (/ e) with (Rpower Y (p - q)).
      - apply Rlt_Rpower_l; lra.
      - unfold Y. rewrite Rpower_mult, Rinv_l by lra.
        apply Rpower_1, Rinv_0_lt_compat, cond_pos. }
    left. rewrite <- (Rinv_inv e).
    apply Rinv_lt_contravar; [| exact Hbig].
    apply Rmult_lt_0_compat; [apply Rinv_0_lt_compat, cond_pos | apply Rpower_pos]. }
  assert (0 < Rpower x (- a)) by apply Rpower_pos.
  assert (0 < Rpower (ln (/ x)) p) by apply Rpower_pos.
  assert (0 < Rpower (ln (/ x)) (q - p)) by apply Rpower_pos.
  replace (Rpower x (- a) * (Rpower (ln (/ x)) (q - p) * Rpower (ln (/ x)) p))
    with (Rpower (ln (/ x)) (q - p) * (Rpower x (- a) * Rpower (ln (/ x)) p)) by ring.
  apply Rmult_le_compat_r; [left; apply Hpos | exact Hsmall].
Qed.

(** Growth in T: if the eps exponent gap is s*T + r with slope s > 0, then for every fixed
    0 < eps < 1 the ratio eps^(-(s*T + r)) of the two rates tends to infinity with T. *)
Theorem T_growth (eps s r : R) :
  0 < eps < 1 -> 0 < s ->
  is_lim (fun T => Rpower eps (- (s * T + r))) p_infty p_infty.
Proof.
  intros [He0 He1] Hs P [M HM].
  assert (Hln : ln eps < ln 1) by (apply ln_increasing; lra).
  rewrite ln_1 in Hln.
  set (k := - ln eps).
  assert (Hk : 0 < k) by (unfold k; lra).
  exists ((M / k - r) / s). intros T HT. apply HM.
  unfold Rpower.
  assert (HT' : M / k < s * T + r).
  { apply (Rmult_lt_compat_l s) in HT; [| exact Hs].
    replace (s * ((M / k - r) / s)) with (M / k - r) in HT by (field; lra). lra. }
  assert (Hz : M < (s * T + r) * k).
  { apply (Rmult_lt_compat_r k) in HT'; [| exact Hk].
    unfold Rdiv in HT'. rewrite Rmult_assoc, Rinv_l in HT' by lra. lra. }
  replace (- (s * T + r) * ln eps) with ((s * T + r) * k) by (unfold k; ring).
  pose proof (exp_ineq1_le ((s * T + r) * k)). lra.
Qed.

(** Sign of a quotient with a positive denominator: the hints certificates use. *)
Lemma div_gt0_iff (n d : R) : 0 < d -> (n / d > 0 <-> n > 0).
Proof.
  intros Hd. split; intros H.
  - replace n with ((n / d) * d) by (field; lra). nra.
  - apply Rdiv_lt_0_compat; lra.
Qed.

Lemma div_ge0_iff (n d : R) : 0 < d -> (n / d >= 0 <-> n >= 0).
Proof.
  intros Hd. split; intros H.
  - replace n with ((n / d) * d) by (field; lra). nra.
  - unfold Rdiv. assert (0 < / d) by (apply Rinv_0_lt_compat; lra). nra.
Qed.

Lemma div_lt0_iff (n d : R) : 0 < d -> (n / d < 0 <-> n < 0).
Proof.
  intros Hd. split; intros H.
  - replace n with ((n / d) * d) by (field; lra). nra.
  - unfold Rdiv. assert (0 < / d) by (apply Rinv_0_lt_compat; lra). nra.
Qed.

Lemma div_le0_iff (n d : R) : 0 < d -> (n / d <= 0 <-> n <= 0).
Proof.
  intros Hd. split; intros H.
  - replace n with ((n / d) * d) by (field; lra). nra.
  - unfold Rdiv. assert (0 < / d) by (apply Rinv_0_lt_compat; lra). nra.
Qed.

Lemma div_eq0_iff (n d : R) : 0 < d -> (n / d = 0 <-> n = 0).
Proof.
  intros Hd. split; intros H.
  - replace n with ((n / d) * d) by (field; lra). rewrite H. ring.
  - rewrite H. unfold Rdiv. ring.
Qed.

Lemma div_neq0_iff (n d : R) : 0 < d -> (n / d <> 0 <-> n <> 0).
Proof.
  intros Hd. pose proof (div_eq0_iff n d Hd). tauto.
Qed.

(** Integrality: a positive integer is at least 1 (what the reals cannot see). *)
Lemma IZR_strict_ge (z : Z) (c : Z) : IZR c < IZR z -> IZR c + 1 <= IZR z.
Proof.
  intros H. apply lt_IZR in H. rewrite <- plus_IZR. apply IZR_le. lia.
Qed.

(** The tactic every certificate's sign proof ends with: linear, then nonlinear arithmetic. *)
Ltac infoflow_arith := first [ lra | nra | psatz R 3 ].

(** A quotient's denominators are nonzero: each is positive or negative on the region. *)
Ltac infoflow_nonzero :=
  repeat split;
  match goal with
  | |- ?x <> 0 => first [ apply Rgt_not_eq; infoflow_arith | apply Rlt_not_eq; infoflow_arith ]
  | _ => idtac
  end.

(** A witness point: every conjunct is a closed statement about rationals, proved by
    computation. *)
Ltac infoflow_compute :=
  repeat split;
  first [ lra | apply Rgt_not_eq; lra | apply Rlt_not_eq; lra ].
