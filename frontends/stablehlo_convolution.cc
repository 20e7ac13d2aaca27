#include "frontends/stablehlo_convolution.h"

#include "frontends/stablehlo_dot.h"
#include "frontends/stablehlo_syntax.h"
#include "ops/attributes.h"
#include "ops/convolution.h"

namespace vkxla {
namespace {

const std::string* Find(const std::map<std::string, std::string>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

// "[false, true]", "array<i1: false, true>", "dense<[false, true]>" or "[0, 1]".
std::vector<int64_t> Flags(const std::string& raw) {
  std::vector<int64_t> out;
  std::string word;
  auto flush = [&] {
    if (word == "true" || word == "1") out.push_back(1);
    else if (word == "false" || word == "0") out.push_back(0);
    word.clear();
  };
  const size_t colon = raw.find(':');
  const bool array = raw.rfind("array<", 0) == 0 && colon != std::string::npos;
  const size_t type_at = raw.find("> :");
  for (size_t i = array ? colon + 1 : 0; i < (type_at == std::string::npos ? raw.size() : type_at); ++i) {
    const char c = raw[i];
    if (std::isalnum(static_cast<unsigned char>(c))) word += c;
    else flush();
  }
  flush();
  return out;
}

// A list of `n` values, a splat (`dense<0> : tensor<2x2xi64>`) filling it.
StatusOr<std::vector<int64_t>> Sized(const std::string& key, const std::string& raw, std::vector<int64_t> values, size_t n) {
  if (values.size() == 1 && n != 1 && raw.find('[') == std::string::npos) values.assign(n, values[0]);
  if (values.size() != n)
    return InvalidArgument("stablehlo.convolution: " + key + " = " + raw + " has " + std::to_string(values.size()) +
                           " values where " + std::to_string(n) + " are expected");
  return values;
}

StatusOr<std::string> DimLabels(const std::string& raw) {
  std::string body = raw;
  const size_t open = body.find('<');
  if (body.rfind("#stablehlo.conv", 0) == 0 && open != std::string::npos && body.back() == '>')
    body = body.substr(open + 1, body.size() - open - 2);
  size_t start = body.find_first_not_of(" \n\t");
  if (start != std::string::npos && body.compare(start, 3, "raw") == 0) {
    // #stablehlo.conv<raw input_batch_dimension = 0, ...>
    const std::map<std::string, std::string> f = StructFields("<" + body.substr(start + 3) + ">");
    auto one = [&](const char* key) -> StatusOr<int64_t> {
      const std::string* v = Find(f, key);
      std::vector<int64_t> x = v ? Integers(*v) : std::vector<int64_t>{};
      if (x.size() != 1) return InvalidArgument(std::string("stablehlo.convolution: dimension_numbers needs ") + key);
      return x[0];
    };
    auto list = [&](const char* key) -> std::vector<int64_t> {
      const std::string* v = Find(f, key);
      return v ? Integers(*v) : std::vector<int64_t>{};
    };
    ConvolutionDimensions d;
    VKXLA_ASSIGN_OR_RETURN(d.input_batch, one("input_batch_dimension"));
    VKXLA_ASSIGN_OR_RETURN(d.input_feature, one("input_feature_dimension"));
    VKXLA_ASSIGN_OR_RETURN(d.kernel_input_feature, one("kernel_input_feature_dimension"));
    VKXLA_ASSIGN_OR_RETURN(d.kernel_output_feature, one("kernel_output_feature_dimension"));
    VKXLA_ASSIGN_OR_RETURN(d.output_batch, one("output_batch_dimension"));
    VKXLA_ASSIGN_OR_RETURN(d.output_feature, one("output_feature_dimension"));
    d.input_spatial = list("input_spatial_dimensions");
    d.kernel_spatial = list("kernel_spatial_dimensions");
    d.output_spatial = list("output_spatial_dimensions");
    // Checked by reading the labels back: each dim once, in range.
    const int64_t rank = d.spatial_rank() + 2;
    auto in_range = [&](int64_t x) { return x >= 0 && x < rank; };
    bool ok = d.kernel_spatial.size() == d.input_spatial.size() && d.output_spatial.size() == d.input_spatial.size();
    for (int64_t x : {d.input_batch, d.input_feature, d.kernel_input_feature, d.kernel_output_feature, d.output_batch, d.output_feature})
      ok = ok && in_range(x);
    for (const auto* v : {&d.input_spatial, &d.kernel_spatial, &d.output_spatial})
      for (int64_t x : *v) ok = ok && in_range(x);
    if (!ok) return InvalidArgument("stablehlo.convolution: dimension_numbers " + raw + " name dims out of range");
    std::string labels = DimLabelsText(d);
    VKXLA_RETURN_IF_ERROR(ParseDimLabels(labels).status());
    return labels;
  }
  return body;
}

}  // namespace

Status ReadStablehloConvolutionAttributes(const std::map<std::string, std::string>& attributes, Instruction& inst) {
  const std::string* numbers = Find(attributes, "dim_numbers");
  if (!numbers) numbers = Find(attributes, "dimension_numbers");
  if (!numbers) return InvalidArgument("stablehlo.convolution needs dim_numbers (or dimension_numbers)");
  VKXLA_ASSIGN_OR_RETURN(std::string labels, DimLabels(*numbers));
  VKXLA_ASSIGN_OR_RETURN(ConvolutionDimensions d, ParseDimLabels(labels));
  if (inst.operands.size() != 2 || !inst.operands[1]->shape.IsArray() || inst.operands[1]->shape.rank() != d.spatial_rank() + 2)
    return InvalidArgument("stablehlo.convolution: dim_numbers " + *numbers + " do not fit its operands");
  const Shape& kernel = inst.operands[1]->shape;
  const size_t n = static_cast<size_t>(d.spatial_rank());
  std::vector<int64_t> sizes;
  for (int64_t x : d.kernel_spatial) sizes.push_back(kernel.dim(x));
  Window w = UnitWindow(sizes);
  // Pretty `window = {...}` fields, else the generic attributes.
  std::map<std::string, std::string> fields;
  if (const std::string* pretty = Find(attributes, "window")) {
    std::string body = *pretty;
    if (body.size() < 2 || body.front() != '{' || body.back() != '}')
      return InvalidArgument("stablehlo.convolution: window = " + body + " is not {stride = [..], pad = [[..]], ...}");
    fields = StructFields("<" + body.substr(1, body.size() - 2) + ">");
  }
  auto field = [&](const char* pretty, const char* generic) -> const std::string* {
    const std::string* v = Find(fields, pretty);
    return v ? v : Find(attributes, generic);
  };
  struct Entry {
    const char *pretty, *generic;
    std::vector<int64_t>* into;
  };
  for (const Entry& e : {Entry{"stride", "window_strides", &w.stride}, Entry{"lhs_dilate", "lhs_dilation", &w.base_dilation},
                         Entry{"rhs_dilate", "rhs_dilation", &w.window_dilation}}) {
    if (const std::string* v = field(e.pretty, e.generic)) {
      VKXLA_ASSIGN_OR_RETURN(*e.into, Sized(e.generic, *v, Integers(*v), n));
    }
  }
  if (const std::string* v = field("pad", "padding")) {
    VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> pads, Sized("padding", *v, Integers(*v), 2 * n));
    for (size_t j = 0; j < n; ++j) {
      w.pad_low[j] = pads[2 * j];
      w.pad_high[j] = pads[2 * j + 1];
    }
  }
  if (const std::string* v = field("reverse", "window_reversal")) {
    VKXLA_ASSIGN_OR_RETURN(w.reversal, Sized("window_reversal", *v, Flags(*v), n));
  }
  SetAttribute(inst, "window", w.ToString());
  SetAttribute(inst, "dim_labels", labels);
  for (const char* key : {"feature_group_count", "batch_group_count"}) {
    if (const std::string* v = Find(attributes, key)) {
      const std::vector<int64_t> x = Integers(*v);
      if (x.size() != 1) return InvalidArgument(std::string("stablehlo.convolution: ") + key + " = " + *v + " is not one integer");
      SetAttribute(inst, key, std::to_string(x[0]));
    }
  }
  return ReadStablehloPrecision(attributes, inst);
}

}  // namespace vkxla
