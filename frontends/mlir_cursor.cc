#include "frontends/mlir_cursor.h"

#include <algorithm>
#include <cctype>

#include "ir/numbers.h"

namespace vkxla {
namespace {

// Where the source location "loc(...)" that starts at `at` ends, or npos
// when none starts there or it is not closed. Only parentheses nest in a
// location ("loc(callsite(\"f\"(#loc1) at #loc2))"); strings are stepped over.
size_t LocationEnd(std::string_view text, size_t at) {
  if (text.substr(at, 4) != "loc(") return std::string_view::npos;
  if (at > 0) {  // "loc(" inside a longer word is not a location
    const char before = text[at - 1];
    if (std::isalnum(static_cast<unsigned char>(before)) || before == '_' || before == '.' || before == '$' ||
        before == '%' || before == '@' || before == '#' || before == '-')
      return std::string_view::npos;
  }
  int depth = 0;
  for (size_t i = at + 3; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
      if (i >= text.size()) return std::string_view::npos;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')' && --depth == 0) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

}  // namespace

void MlirCursor::SkipSpace() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else if (c == 'l' && pos_ != unclosed_location_) {
      // A source location, after an op, an argument, a function or the
      // module: it names where the op came from and changes nothing it
      // computes, so it is skipped wherever it stands, like a comment.
      const size_t end = LocationEnd(text_, pos_);
      if (end == std::string_view::npos) {
        unclosed_location_ = pos_;  // not scanned again from here
        break;
      }
      pos_ = end;
    } else {
      break;
    }
  }
}

bool MlirCursor::AtEnd() {
  SkipSpace();
  return pos_ >= text_.size();
}

char MlirCursor::Peek() {
  SkipSpace();
  return pos_ < text_.size() ? text_[pos_] : '\0';
}

bool MlirCursor::Consume(std::string_view token) {
  SkipSpace();
  if (text_.substr(pos_, token.size()) != token) return false;
  pos_ += token.size();
  return true;
}

Status MlirCursor::Expect(std::string_view token) {
  if (Consume(token)) return OkStatus();
  std::string got(text_.substr(pos_, std::min<size_t>(12, text_.size() - pos_)));
  return Error("expected '" + std::string(token) + "', found '" + got + "'");
}

std::string MlirCursor::Identifier() {
  SkipSpace();
  size_t end = pos_;
  if (end < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[end])) || text_[end] == '_')) {
    while (end < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_' ||
                                  text_[end] == '.' || text_[end] == '$' || text_[end] == '-'))
      ++end;
  }
  std::string id(text_.substr(pos_, end - pos_));
  pos_ = end;
  return id;
}

std::string MlirCursor::SigilName(char sigil, bool allow_result_number) {
  SkipSpace();
  if (pos_ >= text_.size() || text_[pos_] != sigil) return "";
  if (sigil == '@' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
    // @"any name": the same symbol as @name when the name needs no quotes.
    std::string name = "@";
    size_t at = pos_ + 2;
    for (; at < text_.size() && text_[at] != '"'; ++at) {
      if (text_[at] == '\\' && at + 1 < text_.size()) ++at;
      name += text_[at];
    }
    if (at >= text_.size()) return "";  // unterminated: no name
    pos_ = at + 1;
    return name;
  }
  size_t end = pos_ + 1;
  while (end < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_' ||
                                text_[end] == '.' || text_[end] == '$' || text_[end] == '-' ||
                                (allow_result_number && text_[end] == '#')))
    ++end;
  std::string name(text_.substr(pos_, end - pos_));
  pos_ = end;
  return name;
}

StatusOr<int64_t> MlirCursor::Integer() {
  SkipSpace();
  size_t end = pos_;
  if (end < text_.size() && (text_[end] == '-' || text_[end] == '+')) ++end;
  const size_t digits = end;
  while (end < text_.size() && std::isdigit(static_cast<unsigned char>(text_[end]))) ++end;
  if (end == digits) return Error("expected an integer");
  const std::optional<int64_t> v = ParseInt64(text_.substr(pos_, end - pos_));
  if (!v) return Error("integer " + std::string(text_.substr(pos_, end - pos_)) + " is out of range");
  pos_ = end;
  return *v;
}

StatusOr<std::string> MlirCursor::String() {
  SkipSpace();
  if (pos_ >= text_.size() || text_[pos_] != '"') return Error("expected a string");
  size_t end = pos_ + 1;
  std::string out;
  while (end < text_.size() && text_[end] != '"') {
    if (text_[end] == '\\' && end + 1 < text_.size()) ++end;
    out += text_[end++];
  }
  if (end >= text_.size()) return Error("unterminated string");
  pos_ = end + 1;
  return out;
}

StatusOr<std::string> MlirCursor::Balanced() {
  SkipSpace();
  const size_t start = pos_;
  int depth = 0;
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == '"') {
      VKXLA_RETURN_IF_ERROR(String().status());
      continue;
    }
    if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {  // a comment may hold brackets
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
    if (c == ')' || c == ']' || c == '}' || (c == '>' && !(pos_ > 0 && text_[pos_ - 1] == '-'))) --depth;
    ++pos_;
    if (depth == 0) return std::string(text_.substr(start, pos_ - start));
  }
  return Error(start, "unbalanced brackets");
}

void MlirCursor::SkipUntil(std::string_view stops) {
  int depth = 0;
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (depth == 0 && stops.find(c) != std::string_view::npos) return;
    if (c == '"') {
      // An unterminated string runs to the end of the input.
      if (!String().ok()) pos_ = text_.size();
      continue;
    }
    if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
    if ((c == ')' || c == ']' || c == '}' || (c == '>' && !(pos_ > 0 && text_[pos_ - 1] == '-'))) && depth > 0) --depth;
    ++pos_;
  }
}

std::pair<int, int> MlirCursor::LineColumn(size_t at) const {
  at = std::min(at, text_.size());
  if (lc_line_ == 0 || at < lc_at_) {  // first question, or going back: from the start
    lc_at_ = 0;
    lc_line_ = first_line_;
    lc_col_ = 1;
  }
  for (; lc_at_ < at; ++lc_at_) {
    if (text_[lc_at_] == '\n') {
      ++lc_line_;
      lc_col_ = 1;
    } else {
      ++lc_col_;
    }
  }
  return {lc_line_, lc_col_};
}

std::string MlirCursor::Where(size_t at) const {
  const auto [line, col] = LineColumn(at);
  return std::to_string(line) + ":" + std::to_string(col);
}

Status MlirCursor::Error(size_t at, const std::string& message) const {
  size_t begin = text_.rfind('\n', at == 0 ? 0 : at - 1);
  begin = begin == std::string_view::npos ? 0 : begin + 1;
  if (at < begin) begin = at;
  size_t end = text_.find('\n', at);
  if (end == std::string_view::npos) end = text_.size();
  const std::string line(text_.substr(begin, end - begin));
  return InvalidArgument(Where(at) + ": " + message + "\n" + line + "\n" + std::string(at - begin, ' ') + "^");
}

}  // namespace vkxla
