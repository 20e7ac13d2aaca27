#!/usr/bin/python3
"""Writes MobileNet-v2 inference (Sandler et al. 2018) as HLO text.

The weights, the batch-norm statistics and the input image are generated
inside the module from iotas (sin of a per-tensor frequency, scaled as He
initialisation would), so the file is small and runs as it is:

    build/vkxla run samples/mobilenet_v2.hlo

prints the five highest logits of the 1000 classes and their indices. To
classify an image of your own, replace the `image` instruction by
`f32[1,R,R,3] parameter(0)` and pass it with --input @image.npy.

Every convolution is NHWC with HWIO kernels; each is followed by
batch-norm-inference and relu6 (a clamp), except the projections, which
are linear. Blocks with stride 1 and equal widths add their input.

Usage: mobilenet_v2.py [--resolution R] [--width W] [--batch N]
                      [--weights generated|parameters] > out.hlo
"""
import argparse
import math

# (expansion, output channels, repeats, first stride) per stage.
STAGES = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]


def make_divisible(v, divisor=8):
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class Writer:
    def __init__(self, parameters=False):
        self.lines = []
        self.count = 0
        self.tensors = 0
        self.parameters = parameters
        self.params = 0

    def name(self, prefix):
        self.count += 1
        return "%s.%d" % (prefix, self.count)

    def op(self, prefix, shape, text):
        n = self.name(prefix)
        self.lines.append("  %%%s = %s %s" % (n, shape, text))
        return n

    def generated(self, dims, amplitude, offset=0.0):
        """offset + amplitude * sin(i * f + phase) over the flat index i,
        or an entry parameter of that shape (--weights parameters)."""
        self.tensors += 1
        if self.parameters:
            self.params += 1
            return self.op("p", "f32[%s]" % ",".join(str(d) for d in dims), "parameter(%d)" % (self.params - 1))
        f = 0.7548776662466927 * self.tensors + 0.1
        phase = 0.5 * self.tensors
        count = 1
        for d in dims:
            count *= d
        flat = "f32[%d]" % count
        full = "f32[%s]" % ",".join(str(d) for d in dims)
        i = self.op("i", flat, "iota(), iota_dimension=0")
        fk = self.op("k", "f32[]", "constant(%r)" % f)
        fb = self.op("kb", flat, "broadcast(%%%s), dimensions={}" % fk)
        x = self.op("x", flat, "multiply(%%%s, %%%s)" % (i, fb))
        pk = self.op("k", "f32[]", "constant(%r)" % phase)
        pb = self.op("kb", flat, "broadcast(%%%s), dimensions={}" % pk)
        x = self.op("x", flat, "add(%%%s, %%%s)" % (x, pb))
        s = self.op("s", flat, "sine(%%%s)" % x)
        ak = self.op("k", "f32[]", "constant(%r)" % amplitude)
        ab = self.op("kb", flat, "broadcast(%%%s), dimensions={}" % ak)
        s = self.op("s", flat, "multiply(%%%s, %%%s)" % (s, ab))
        if offset:
            ok = self.op("k", "f32[]", "constant(%r)" % offset)
            ob = self.op("kb", flat, "broadcast(%%%s), dimensions={}" % ok)
            s = self.op("s", flat, "add(%%%s, %%%s)" % (s, ob))
        if len(dims) == 1:
            return s
        return self.op("w", full, "reshape(%%%s)" % s)


def shape(n, h, w, c):
    return "f32[%d,%d,%d,%d]" % (n, h, w, c)


def conv_bn(wr, x, dims, cout, k, stride, groups, relu6):
    n, h, w, cin = dims
    pad = (k - 1) // 2
    oh = (h + 2 * pad - k) // stride + 1
    ow = (w + 2 * pad - k) // stride + 1
    fan_in = k * k * (cin // groups)
    weights = wr.generated([k, k, cin // groups, cout], 2.0 / math.sqrt(fan_in))
    out = shape(n, oh, ow, cout)
    window = "size=%dx%d" % (k, k)
    if stride != 1:
        window += " stride=%dx%d" % (stride, stride)
    if pad:
        window += " pad=%d_%dx%d_%d" % (pad, pad, pad, pad)
    groups_attr = ", feature_group_count=%d" % groups if groups > 1 else ""
    y = wr.op("conv", out, "convolution(%%%s, %%%s), window={%s}, dim_labels=b01f_01io->b01f%s" % (x, weights, window, groups_attr))
    gamma = wr.generated([cout], 0.1, 1.0)
    beta = wr.generated([cout], 0.05)
    mean = wr.generated([cout], 0.05)
    var = wr.generated([cout], 0.2, 1.0)
    y = wr.op("bn", out, "batch-norm-inference(%%%s, %%%s, %%%s, %%%s, %%%s), epsilon=0.001, feature_index=3" %
              (y, gamma, beta, mean, var))
    if relu6:
        y = wr.op("relu6", out, "clamp(%zero, %" + y + ", %six)")
    return y, (n, oh, ow, cout)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--resolution", type=int, default=224)
    p.add_argument("--width", type=float, default=1.0)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--classes", type=int, default=1000)
    p.add_argument("--weights", choices=["generated", "parameters"], default="generated",
                   help="parameters: the image, weights and statistics are entry parameters, in the order the "
                        "layers use them (for timing with random inputs: vkxla benchmark, vkxla bench)")
    a = p.parse_args()
    wr = Writer(a.weights == "parameters")
    r, n = a.resolution, a.batch
    dims = (n, r, r, 3)
    image = wr.generated(list(dims), 1.0)
    wr.lines.append("  %%image = %s copy(%%%s)" % (shape(*dims), image))
    x = "image"
    x, dims = conv_bn(wr, x, dims, make_divisible(32 * a.width), 3, 2, 1, True)
    for t, c, repeats, s in STAGES:
        cout = make_divisible(c * a.width)
        for i in range(repeats):
            stride = s if i == 0 else 1
            cin = dims[3]
            y, ydims = x, dims
            if t != 1:
                y, ydims = conv_bn(wr, y, ydims, cin * t, 1, 1, 1, True)
            y, ydims = conv_bn(wr, y, ydims, ydims[3], 3, stride, ydims[3], True)
            y, ydims = conv_bn(wr, y, ydims, cout, 1, 1, 1, False)
            if stride == 1 and cin == cout:
                y = wr.op("residual", shape(*ydims), "add(%%%s, %%%s)" % (x, y))
            x, dims = y, ydims
    last = make_divisible(1280 * max(1.0, a.width))
    x, dims = conv_bn(wr, x, dims, last, 1, 1, 1, True)
    n, h, w, c = dims
    pooled = wr.op("sum", "f32[%d,%d]" % (n, c), "reduce(%%%s, %%zero), dimensions={1,2}, to_apply=%%add" % x)
    area = wr.op("k", "f32[]", "constant(%d)" % (h * w))
    area_b = wr.op("kb", "f32[%d,%d]" % (n, c), "broadcast(%%%s), dimensions={}" % area)
    pooled = wr.op("mean", "f32[%d,%d]" % (n, c), "divide(%%%s, %%%s)" % (pooled, area_b))
    fc = wr.generated([c, a.classes], 2.0 / math.sqrt(c))
    bias = wr.generated([a.classes], 0.01)
    logits = wr.op("logits", "f32[%d,%d]" % (n, a.classes),
                   "dot(%%%s, %%%s), lhs_contracting_dims={1}, rhs_contracting_dims={0}" % (pooled, fc))
    bias_b = wr.op("bias", "f32[%d,%d]" % (n, a.classes), "broadcast(%%%s), dimensions={1}" % bias)
    logits = wr.op("logits", "f32[%d,%d]" % (n, a.classes), "add(%%%s, %%%s)" % (logits, bias_b))
    print("HloModule mobilenet_v2_%d_%s" % (r, str(a.width).replace(".", "_")))
    print()
    print("// Written by tools/models/mobilenet_v2.py --resolution %d --width %s --batch %d --weights %s:" %
          (r, a.width, n, a.weights))
    print("// MobileNet-v2 inference with %s weights and image; the five highest logits and their classes." %
          ("generated" if a.weights == "generated" else "parameters for"))
    print("%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n  ROOT %s = f32[] add(%a, %b)\n}\n")
    if wr.parameters:
        print("ENTRY %main {")  # the parameters' shapes are on their instructions
    else:
        print("ENTRY %main () -> (f32[{0},5], s32[{0},5]) {{".format(n))
    print("  %zero = f32[] constant(0)\n  %six = f32[] constant(6)")
    for line in wr.lines:
        print(line)
    print("  ROOT %%top = (f32[%d,5], s32[%d,5]) topk(%%%s), k=5, largest=true" % (n, n, logits))
    print("}")


if __name__ == "__main__":
    main()
