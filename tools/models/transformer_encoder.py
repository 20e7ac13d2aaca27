#!/usr/bin/python3
"""Writes one BERT encoder layer (Devlin et al. 2019) as HLO text.

The layer as BERT computes it (post-layer-norm): multi-head self-attention
with biased q, k, v and output projections and softmax(q k^T / sqrt(d)),
then x + attention through a layer norm, then a feed-forward block with
the exact gelu, x (1 + erf(x / sqrt 2)) / 2, added and normalised again.
Every weight is a parameter, in the order the ENTRY lists them, so

    build/vkxla run samples/transformer_encoder.hlo --input @x.npy ...

runs it on real weights; `vkxla bench` and tests/models_test.cc give it
random ones.

Usage: transformer_encoder.py [--seq S] [--hidden H] [--heads N] [--ffn F] > out.hlo
"""
import argparse


def layer(seq, hidden, heads, ffn):
    d = hidden // heads
    x, v, m = f"f32[{seq},{hidden}]", f"f32[{hidden}]", f"f32[{hidden},{hidden}]"
    out = [f"HloModule transformer_encoder_s{seq}_h{hidden}_n{heads}_f{ffn}", ""]
    out.append(f"// Written by tools/models/transformer_encoder.py --seq {seq} --hidden {hidden} --heads {heads} --ffn {ffn}:")
    out.append("// one BERT encoder layer, weights as parameters; its output rows.")
    out += ["%add (a: f32[], b: f32[]) -> f32[] {", "  %a = f32[] parameter(0)", "  %b = f32[] parameter(1)",
            "  ROOT %s = f32[] add(%a, %b)", "}", "",
            "%max (a: f32[], b: f32[]) -> f32[] {", "  %a = f32[] parameter(0)", "  %b = f32[] parameter(1)",
            "  ROOT %m = f32[] maximum(%a, %b)", "}", ""]
    # Layer norm over the rows of x with a scale and an offset.
    out += [f"%layer_norm (x: {x}, g: {v}, b: {v}) -> {x} {{", f"  %x = {x} parameter(0)", f"  %g = {v} parameter(1)",
            f"  %b = {v} parameter(2)", "  %zero = f32[] constant(0)", f"  %inv = f32[] constant({1.0 / hidden!r})",
            f"  %s = f32[{seq}] reduce(%x, %zero), dimensions={{1}}, to_apply=%add",
            f"  %invb = f32[{seq}] broadcast(%inv), dimensions={{}}", f"  %mean = f32[{seq}] multiply(%s, %invb)",
            f"  %mb = {x} broadcast(%mean), dimensions={{0}}", f"  %c = {x} subtract(%x, %mb)", f"  %c2 = {x} multiply(%c, %c)",
            f"  %ss = f32[{seq}] reduce(%c2, %zero), dimensions={{1}}, to_apply=%add",
            f"  %var = f32[{seq}] multiply(%ss, %invb)", "  %eps = f32[] constant(1e-12)",
            f"  %epsb = f32[{seq}] broadcast(%eps), dimensions={{}}", f"  %ve = f32[{seq}] add(%var, %epsb)",
            f"  %r = f32[{seq}] rsqrt(%ve)", f"  %rb = {x} broadcast(%r), dimensions={{0}}", f"  %n = {x} multiply(%c, %rb)",
            f"  %gb = {x} broadcast(%g), dimensions={{1}}", f"  %bb = {x} broadcast(%b), dimensions={{1}}",
            f"  %sc = {x} multiply(%n, %gb)", f"  ROOT %y = {x} add(%sc, %bb)", "}", ""]
    params = [("x", x)]
    for name in ("q", "k", "v", "o"):
        params += [(f"w{name}", m), (f"b{name}", v)]
    params += [("ln1_g", v), ("ln1_b", v), ("w1", f"f32[{hidden},{ffn}]"), ("b1", f"f32[{ffn}]"),
               ("w2", f"f32[{ffn},{hidden}]"), ("b2", v), ("ln2_g", v), ("ln2_b", v)]
    out.append("ENTRY %main {")
    out += [f"  %{name} = {shape} parameter({i})" for i, (name, shape) in enumerate(params)]

    def dense(name, inp, w, b, rows, cols, inner):
        r = f"f32[{rows},{cols}]"
        return [f"  %{name}.d = {r} dot(%{inp}, %{w}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}",
                f"  %{name}.bb = {r} broadcast(%{b}), dimensions={{1}}", f"  %{name} = {r} add(%{name}.d, %{name}.bb)"]

    h3, t3 = f"f32[{seq},{heads},{d}]", f"f32[{heads},{seq},{d}]"
    for name in ("q", "k", "v"):
        out += dense(name, "x", f"w{name}", f"b{name}", seq, hidden, hidden)
        out += [f"  %{name}.3 = {h3} reshape(%{name})", f"  %{name}.t = {t3} transpose(%{name}.3), dimensions={{1,0,2}}"]
    s3 = f"f32[{heads},{seq},{seq}]"
    out += [f"  %scores = {s3} dot(%q.t, %k.t), lhs_batch_dims={{0}}, rhs_batch_dims={{0}}, lhs_contracting_dims={{2}}, "
            "rhs_contracting_dims={2}",
            f"  %scale = f32[] constant({1.0 / d ** 0.5!r})", f"  %scaleb = {s3} broadcast(%scale), dimensions={{}}",
            f"  %scaled = {s3} multiply(%scores, %scaleb)", "  %ninf = f32[] constant(-inf)",
            f"  %mx = f32[{heads},{seq}] reduce(%scaled, %ninf), dimensions={{2}}, to_apply=%max",
            f"  %mxb = {s3} broadcast(%mx), dimensions={{0,1}}", f"  %shifted = {s3} subtract(%scaled, %mxb)",
            f"  %e = {s3} exponential(%shifted)", "  %zero = f32[] constant(0)",
            f"  %se = f32[{heads},{seq}] reduce(%e, %zero), dimensions={{2}}, to_apply=%add",
            f"  %seb = {s3} broadcast(%se), dimensions={{0,1}}", f"  %p = {s3} divide(%e, %seb)",
            f"  %ctx = {t3} dot(%p, %v.t), lhs_batch_dims={{0}}, rhs_batch_dims={{0}}, lhs_contracting_dims={{2}}, "
            "rhs_contracting_dims={1}",
            f"  %ctx.t = {h3} transpose(%ctx), dimensions={{1,0,2}}", f"  %ctx.2 = {x} reshape(%ctx.t)"]
    out += dense("attn", "ctx.2", "wo", "bo", seq, hidden, hidden)
    out += [f"  %res1 = {x} add(%attn, %x)", f"  %x1 = {x} call(%res1, %ln1_g, %ln1_b), to_apply=%layer_norm"]
    f = f"f32[{seq},{ffn}]"
    out += dense("h", "x1", "w1", "b1", seq, ffn, hidden)
    out += ["  %rs2 = f32[] constant(0.70710678118654757)", f"  %rs2b = {f} broadcast(%rs2), dimensions={{}}",
            f"  %hs = {f} multiply(%h, %rs2b)", f"  %erf = {f} erf(%hs)", "  %one = f32[] constant(1)",
            f"  %oneb = {f} broadcast(%one), dimensions={{}}", f"  %erf1 = {f} add(%erf, %oneb)", "  %half = f32[] constant(0.5)",
            f"  %halfb = {f} broadcast(%half), dimensions={{}}", f"  %hh = {f} multiply(%h, %halfb)",
            f"  %gelu = {f} multiply(%hh, %erf1)"]
    out += dense("ffn", "gelu", "w2", "b2", seq, hidden, ffn)
    out += [f"  %res2 = {x} add(%ffn, %x1)", f"  ROOT %y = {x} call(%res2, %ln2_g, %ln2_b), to_apply=%layer_norm", "}"]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--ffn", type=int, default=1024)
    a = ap.parse_args()
    if a.hidden % a.heads:
        ap.error("--hidden must be a multiple of --heads")
    print(layer(a.seq, a.hidden, a.heads, a.ffn), end="")


if __name__ == "__main__":
    main()
