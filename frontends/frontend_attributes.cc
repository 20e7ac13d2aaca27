#include "frontends/frontend_attributes.h"

#include <cctype>

namespace vkxla {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string UnescapeOnce(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out += s[i];
      continue;
    }
    const char next = s[++i];
    if (next == 'n') {
      out += '\n';
    } else if (next == 't') {
      out += '\t';
    } else if (i + 1 < s.size() && HexDigit(next) >= 0 && HexDigit(s[i + 1]) >= 0) {
      out += static_cast<char>(HexDigit(next) * 16 + HexDigit(s[i + 1]));
      ++i;
    } else {
      out += next;  // \\ and \" and any other escaped character
    }
  }
  return out;
}

std::string UnescapeAttributeString(std::string_view quoted) {
  std::string s = UnescapeOnce(quoted);
  for (int level = 1; level < 3 && s.find('\\') != std::string::npos; ++level) s = UnescapeOnce(s);
  return s;
}

std::optional<std::string> FrontendAttribute(std::string_view dictionary, std::string_view key) {
  // {key = "value", key2 = "value2"}: keys, then quoted values, in turn.
  size_t p = dictionary.find('{');
  if (p == std::string_view::npos) return std::nullopt;
  auto space = [&] {
    while (p < dictionary.size() && std::isspace(static_cast<unsigned char>(dictionary[p]))) ++p;
  };
  ++p;
  while (true) {
    space();
    if (p < dictionary.size() && dictionary[p] == ',') {
      ++p;
      space();
    }
    const size_t begin = p;
    if (p < dictionary.size() && dictionary[p] == '"') {  // a quoted key
      p = dictionary.find('"', p + 1);
      if (p == std::string_view::npos) return std::nullopt;
      ++p;
    } else {
      while (p < dictionary.size() && dictionary[p] != '=' && dictionary[p] != '}' && !std::isspace(static_cast<unsigned char>(dictionary[p]))) ++p;
    }
    std::string_view name = dictionary.substr(begin, p - begin);
    if (name.size() >= 2 && name.front() == '"') name = name.substr(1, name.size() - 2);
    space();
    if (name.empty() || p >= dictionary.size() || dictionary[p] != '=') return std::nullopt;
    ++p;
    space();
    if (p < dictionary.size() && dictionary[p] != '"') {  // not a string: passed over
      int depth = 0;
      while (p < dictionary.size() && !(depth == 0 && (dictionary[p] == ',' || dictionary[p] == '}'))) {
        if (dictionary[p] == '{' || dictionary[p] == '[' || dictionary[p] == '<' || dictionary[p] == '(') ++depth;
        if (dictionary[p] == '}' || dictionary[p] == ']' || dictionary[p] == '>' || dictionary[p] == ')') --depth;
        ++p;
      }
      if (p >= dictionary.size() || dictionary[p] == '}') return std::nullopt;
      continue;
    }
    if (p >= dictionary.size()) return std::nullopt;
    size_t end = p + 1;
    while (end < dictionary.size() && dictionary[end] != '"') end += dictionary[end] == '\\' ? 2 : 1;
    if (end >= dictionary.size()) return std::nullopt;
    if (name == key) return UnescapeAttributeString(dictionary.substr(p + 1, end - p - 1));
    p = end + 1;
  }
}

}  // namespace vkxla
