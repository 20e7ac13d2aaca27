// A position in MLIR text with the small lexical steps the StableHLO reader
// needs: whitespace, // comments and loc(...), identifiers, numbers, balanced
// skipping, and errors that say line:col with the line and a caret.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "vkxla/status.h"

namespace vkxla {

class MlirCursor {
 public:
  explicit MlirCursor(std::string_view text, int first_line = 1) : text_(text), first_line_(first_line) {}

  void SkipSpace();  // whitespace, // comments and source locations loc(...)
  bool AtEnd();
  char Peek();       // after SkipSpace; '\0' at the end
  bool Consume(std::string_view token);  // after SkipSpace, exact text
  Status Expect(std::string_view token);
  // [A-Za-z_.$0-9-]+ starting with a letter or '_' (op and attribute names).
  std::string Identifier();
  // %name, %name#3, @name (with the sigil); "" if none here.
  std::string ValueName() { return SigilName('%', true); }
  std::string SymbolName() { return SigilName('@', false); }
  StatusOr<int64_t> Integer();
  // A quoted string without its quotes.
  StatusOr<std::string> String();
  // The raw text of one balanced group starting at the current ( [ { or <.
  StatusOr<std::string> Balanced();
  // Skips up to (not past) the next top-level occurrence of any char of
  // `stops`; nested () [] {} <> are stepped over.
  void SkipUntil(std::string_view stops);

  size_t position() const { return pos_; }
  void set_position(size_t p) { pos_ = p; }
  std::string_view rest() const { return text_.substr(pos_); }
  std::string_view text() const { return text_; }
  // line:col of the current position (or of `at`).
  std::string Where(size_t at) const;
  // The same as numbers; asking in increasing order costs the text once
  // (the last answer is kept), not once per question.
  std::pair<int, int> LineColumn(size_t at) const;
  std::string Where() const { return Where(pos_); }
  Status Error(const std::string& message) const { return Error(pos_, message); }
  Status Error(size_t at, const std::string& message) const;

 private:
  std::string SigilName(char sigil, bool allow_result_number);
  std::string_view text_;
  size_t pos_ = 0;
  // Where SkipSpace last found "loc(" that is no location (not closed, or
  // inside a word), so it does not scan that far again.
  size_t unclosed_location_ = std::string_view::npos;
  int first_line_;
  // LineColumn's last answer: offset, line, column.
  mutable size_t lc_at_ = 0;
  mutable int lc_line_ = 0, lc_col_ = 1;
};

}  // namespace vkxla
