// The Python module `vkxla`: the public API (include/vkxla/vkxla.h) with
// numpy arrays in and out.
//
//   import vkxla
//   exe = vkxla.compile("model.hlo")          # or HLO / StableHLO text
//   outs = exe(x, y)                          # a list of numpy arrays
//
// Types numpy lacks (bf16, the f8 types, s4/u4, s2/u2) use ml_dtypes' dtypes
// where that package is installed; without it they arrive widened exactly
// (float32, int8, uint8), and such parameters take float32 (rounded to
// nearest even) or int8/uint8 values (range-checked).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "vkxla/vkxla.h"

namespace py = pybind11;

namespace vkxla {
namespace {

// vkxla.Error (a RuntimeError) carries the library's message unchanged.
// The type lives as long as the interpreter, so it is never released.
PyObject* error_type = nullptr;

[[noreturn]] void Raise(const Status& status) {
  PyErr_SetString(error_type, status.message().c_str());
  throw py::error_already_set();
}

template <typename T>
T Check(StatusOr<T> value) {
  if (!value.ok()) Raise(value.status());
  return std::move(value).value();
}

// numpy's own dtypes for the types it has.
std::optional<ElementType> NumpyNativeType(const py::dtype& dtype) {
  static const std::map<std::string, ElementType> types = {
      {"bool", ElementType::kPred},       {"int8", ElementType::kS8},      {"int16", ElementType::kS16},
      {"int32", ElementType::kS32},       {"int64", ElementType::kS64},    {"uint8", ElementType::kU8},
      {"uint16", ElementType::kU16},      {"uint32", ElementType::kU32},   {"uint64", ElementType::kU64},
      {"float16", ElementType::kF16},     {"float32", ElementType::kF32},  {"float64", ElementType::kF64},
      {"complex64", ElementType::kC64},   {"complex128", ElementType::kC128}};
  auto it = types.find(py::str(dtype.attr("name")));
  if (it == types.end()) return std::nullopt;
  return it->second;
}

// ml_dtypes' name for the types numpy lacks.
const char* MlDtypesName(ElementType t) {
  switch (t) {
    case ElementType::kBF16: return "bfloat16";
    case ElementType::kF8E4M3FN: return "float8_e4m3fn";
    case ElementType::kF8E5M2: return "float8_e5m2";
    case ElementType::kF8E4M3: return "float8_e4m3";
    case ElementType::kF8E3M4: return "float8_e3m4";
    case ElementType::kF8E4M3FNUZ: return "float8_e4m3fnuz";
    case ElementType::kF8E5M2FNUZ: return "float8_e5m2fnuz";
    case ElementType::kF8E4M3B11FNUZ: return "float8_e4m3b11fnuz";
    case ElementType::kF8E8M0FNU: return "float8_e8m0fnu";
    case ElementType::kF4E2M1FN: return "float4_e2m1fn";
    case ElementType::kF6E2M3FN: return "float6_e2m3fn";
    case ElementType::kF6E3M2FN: return "float6_e3m2fn";
    case ElementType::kS4: return "int4";
    case ElementType::kU4: return "uint4";
    case ElementType::kS2: return "int2";
    case ElementType::kU2: return "uint2";
    default: return nullptr;
  }
}

// ml_dtypes' dtype for `t`, if the package is installed and has it.
std::optional<py::dtype> MlDtype(ElementType t) {
  const char* name = MlDtypesName(t);
  if (!name) return std::nullopt;
  static std::optional<py::module_> ml_dtypes = []() -> std::optional<py::module_> {
    try {
      return py::module_::import("ml_dtypes");
    } catch (py::error_already_set&) {
      return std::nullopt;
    }
  }();
  if (!ml_dtypes || !py::hasattr(*ml_dtypes, name)) return std::nullopt;
  return py::dtype::from_args(ml_dtypes->attr(name));
}

// The numpy type that holds `t` exactly when ml_dtypes is missing.
ElementType WidenedType(ElementType t) {
  switch (t) {
    case ElementType::kS4: case ElementType::kS2: return ElementType::kS8;
    case ElementType::kU4: case ElementType::kU2: return ElementType::kU8;
    default: return ElementType::kF32;  // bf16 and the f8 types
  }
}

py::dtype NumpyDtype(ElementType t) {
  switch (t) {
    case ElementType::kPred: return py::dtype::of<bool>();
    case ElementType::kS8: return py::dtype::of<int8_t>();
    case ElementType::kS16: return py::dtype::of<int16_t>();
    case ElementType::kS32: return py::dtype::of<int32_t>();
    case ElementType::kS64: return py::dtype::of<int64_t>();
    case ElementType::kU8: return py::dtype::of<uint8_t>();
    case ElementType::kU16: return py::dtype::of<uint16_t>();
    case ElementType::kU32: return py::dtype::of<uint32_t>();
    case ElementType::kU64: return py::dtype::of<uint64_t>();
    case ElementType::kF16: return py::dtype("float16");
    case ElementType::kF32: return py::dtype::of<float>();
    case ElementType::kF64: return py::dtype::of<double>();
    case ElementType::kC64: return py::dtype::of<std::complex<float>>();
    case ElementType::kC128: return py::dtype::of<std::complex<double>>();
    default: break;
  }
  if (std::optional<py::dtype> ml = MlDtype(t)) return *ml;
  return NumpyDtype(WidenedType(t));
}

py::array ToNumpy(const Array& array) {
  if (MlDtypesName(array.type()) && !MlDtype(array.type()))
    return ToNumpy(Check(array.Converted(WidenedType(array.type()))));
  py::array out(NumpyDtype(array.type()), std::vector<py::ssize_t>(array.dims().begin(), array.dims().end()));
  if (!array.bytes().empty()) std::memcpy(out.mutable_data(), array.bytes().data(), array.bytes().size());
  return out;
}

// The element type of a numpy dtype: numpy's own, or ml_dtypes' by name.
std::optional<ElementType> ElementTypeOfDtype(const py::dtype& dtype) {
  if (std::optional<ElementType> t = NumpyNativeType(dtype)) return t;
  const std::string name = py::str(dtype.attr("name"));
  for (ElementType t : ArrayElementTypes())
    if (MlDtypesName(t) && name == MlDtypesName(t)) return t;
  return std::nullopt;
}

// The argument for a parameter of `spec`: a numpy array of its type, or a
// Python scalar or list (converted to the parameter's type), or, for the
// types numpy lacks, float32 / int8 / uint8 values.
Array FromPython(const py::handle& value, const ArraySpec& spec, size_t index) {
  const bool is_numpy = py::isinstance<py::array>(value);
  py::array array = is_numpy ? py::reinterpret_borrow<py::array>(value)
                             : py::array(py::module_::import("numpy").attr("asarray")(value, NumpyDtype(spec.type)));
  array = py::array::ensure(array, py::array::c_style);  // keeps 0-d arrays 0-d
  const std::optional<ElementType> given = ElementTypeOfDtype(array.dtype());
  if (!given)
    Raise(InvalidArgument("argument " + std::to_string(index) + ": numpy dtype " +
                          std::string(py::str(array.dtype())) + " has no vkxla element type"));
  std::vector<int64_t> dims(array.shape(), array.shape() + array.ndim());
  std::vector<uint8_t> bytes(static_cast<size_t>(array.nbytes()));
  if (!bytes.empty()) std::memcpy(bytes.data(), array.data(), bytes.size());
  Array a = Check(Array::FromBytes(*given, std::move(dims), std::move(bytes)));
  if (*given == spec.type) return a;
  // Only the types numpy lacks convert implicitly, from their widened type.
  if (MlDtypesName(spec.type) && *given == WidenedType(spec.type)) {
    if (WidenedType(spec.type) == ElementType::kF32) return Check(a.Converted(spec.type));
    // s4/u4/s2/u2 from int8/uint8: the same bytes, range-checked.
    return Check(Array::FromBytes(spec.type, a.dims(), std::vector<uint8_t>(a.bytes().begin(), a.bytes().end())));
  }
  Raise(InvalidArgument("argument " + std::to_string(index) + " is " + a.ShapeString() + " but the parameter is " +
                        spec.ToString()));
}

// One Runtime per device, opened on first use: opening a device (and its
// pipeline cache) is far dearer than compiling against an open one.
Runtime& RuntimeFor(int device) {
  static std::mutex mu;
  static std::map<int, Runtime> runtimes;
  std::lock_guard<std::mutex> lock(mu);
  auto it = runtimes.find(device);
  if (it == runtimes.end()) {
    RuntimeOptions options;
    options.device = device;
    it = runtimes.emplace(device, Check(Runtime::Open(options))).first;
  }
  return it->second;
}

// A path when it holds no newline and names a file or ends as a module
// file does (so a mistyped path says "cannot open"); else program text.
bool IsPath(const std::string& source) {
  if (source.find('\n') != std::string::npos || source.size() > 4096) return false;
  for (const char* suffix : {".hlo", ".mlir", ".txt"})
    if (source.ends_with(suffix)) return true;
  return py::bool_(py::module_::import("os.path").attr("isfile")(source));
}

CompiledModule Compile(const std::string& source, std::optional<int> device, const std::string& format,
                       const std::string& function, const std::optional<py::list>& arguments) {
  CompileOptions options;
  options.function = function;
  if (arguments)  // numpy arrays (or anything with .shape and .dtype): the shapes a polymorphic module is compiled for
    for (const py::handle a : *arguments) {
      const py::array array = py::array::ensure(a);
      if (!array) Raise(InvalidArgument("arguments= takes numpy arrays, one per argument"));
      const std::optional<ElementType> type = ElementTypeOfDtype(array.dtype());
      if (!type) Raise(InvalidArgument("arguments=: dtype " + std::string(py::str(array.dtype())) + " is not an XLA element type"));
      ArraySpec spec;
      spec.type = *type;
      for (py::ssize_t d = 0; d < array.ndim(); ++d) spec.dims.push_back(static_cast<int64_t>(array.shape(d)));
      options.argument_specs.push_back(std::move(spec));
    }
  if (format == "hlo") options.format = SourceFormat::kHloText;
  else if (format == "stablehlo" || format == "mlir") options.format = SourceFormat::kStablehlo;
  else if (!format.empty()) Raise(InvalidArgument("format '" + format + "' is not one of hlo, stablehlo"));
  if (device && *device < 0) Raise(InvalidArgument("device " + std::to_string(*device) + " is negative (see vkxla.devices())"));
  Runtime& runtime = RuntimeFor(device.value_or(-1));
  const bool is_path = IsPath(source);
  StatusOr<CompiledModule> compiled = [&] {
    py::gil_scoped_release release;  // compiling takes long; errors are raised with the GIL held
    return is_path ? runtime.CompileFile(source, options) : runtime.Compile(source, options);
  }();
  return Check(std::move(compiled));
}

// A replicated module's call, as jax.pmap takes it: each argument holds
// every process's value on a leading axis, and so does each result.
py::list CallProcesses(const CompiledModule& module, const py::args& args) {
  const std::vector<ArraySpec>& specs = module.parameters();
  const int64_t n = module.processes();
  py::module_ np = py::module_::import("numpy");
  std::vector<std::vector<Array>> arrays(static_cast<size_t>(n));
  for (size_t i = 0; i < args.size(); ++i) {
    py::object stacked = np.attr("asarray")(args[i]);
    const py::tuple shape = stacked.attr("shape");
    if (shape.size() == 0 || shape[0].cast<int64_t>() != n)
      Raise(InvalidArgument("argument " + std::to_string(i) + " must hold the values of the module's " + std::to_string(n) +
                            " processes on its leading axis; its shape is " + std::string(py::str(py::object(shape)))));
    for (int64_t p = 0; p < n; ++p) arrays[p].push_back(FromPython(stacked[py::int_(p)], specs[i], i));
  }
  StatusOr<std::vector<std::vector<Array>>> results = [&] {
    py::gil_scoped_release release;
    return module.RunProcesses(arrays);
  }();
  const std::vector<std::vector<Array>> per_process = Check(std::move(results));
  py::list out;
  for (size_t k = 0; k < per_process[0].size(); ++k) {
    py::list slices;
    for (const std::vector<Array>& r : per_process) slices.append(ToNumpy(r[k]));
    out.append(np.attr("stack")(slices));
  }
  return out;
}

py::list Call(const CompiledModule& module, const py::args& args) {
  const std::vector<ArraySpec>& specs = module.parameters();
  if (args.size() != specs.size())
    Raise(InvalidArgument("the module takes " + std::to_string(specs.size()) + " arguments, " +
                          std::to_string(args.size()) + " were given"));
  if (module.processes() > 1) return CallProcesses(module, args);
  std::vector<Array> arrays;
  for (size_t i = 0; i < args.size(); ++i) arrays.push_back(FromPython(args[i], specs[i], i));
  StatusOr<std::vector<Array>> results = [&] {
    py::gil_scoped_release release;
    return module.Run(arrays);
  }();
  py::list out;
  for (const Array& a : Check(std::move(results))) out.append(ToNumpy(a));
  return out;
}

py::list Specs(const std::vector<ArraySpec>& specs) {
  py::list out;
  for (const ArraySpec& s : specs) out.append(s.ToString());
  return out;
}

}  // namespace
}  // namespace vkxla

PYBIND11_MODULE(vkxla, m) {
  using namespace vkxla;
  m.doc() = "XLA programs (HLO text or StableHLO) on any Vulkan GPU";
  m.attr("__version__") = std::string(Version());
  error_type = PyErr_NewException("vkxla.Error", PyExc_RuntimeError, nullptr);
  m.attr("Error") = py::handle(error_type);

  m.def("devices", [] {
    py::list out;
    for (const DeviceDescription& d : Check(ListDevices())) {
      py::dict entry;
      entry["index"] = d.index;
      entry["name"] = d.name;
      entry["type"] = d.type;
      entry["driver"] = d.driver;
      entry["api_version"] = d.api_version;
      out.append(entry);
    }
    return out;
  }, "The Vulkan devices: index, name, type, driver, api_version.");

  py::class_<CompiledModule>(m, "Executable",
                             "A module compiled for one device; call it with the arguments. A replicated module "
                             "(replica_count > 1) takes and gives every process's values stacked on a leading axis.")
      .def("__call__", &Call)
      .def_property_readonly("processes", &CompiledModule::processes)
      .def_property_readonly("parameters", [](const CompiledModule& c) { return Specs(c.parameters()); })
      .def_property_readonly("results", [](const CompiledModule& c) { return Specs(c.results()); });

  m.def("compile", &Compile, py::arg("source"), py::arg("device") = py::none(), py::arg("format") = "",
        py::arg("function") = "", py::arg("arguments") = py::none(),
        "Compiles HLO text or StableHLO (text, or the path of a .hlo/.mlir file) for a device "
        "(an index from devices(); default $VKXLA_DEVICE, else 0). format: 'hlo' or 'stablehlo' "
        "(default: from the file name or the text). function: the StableHLO function to run. "
        "arguments: example arrays whose shapes a shape-polymorphic StableHLO module (tensor<?x4xf32>) is compiled for.");
}
