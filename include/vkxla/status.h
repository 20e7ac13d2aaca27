// Errors are values: every fallible vkxla call returns Status or
// StatusOr<T>; the message names the op and shapes or the source position.
// Part of the installed public API.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace vkxla {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,   // bad input: text, shapes, data files
  kUnimplemented,     // a valid program this build or device cannot run
  kFailedPrecondition,
  kResourceExhausted, // device or host memory
  kInternal,          // a bug or a driver failure
  kNotFound,
  kUnavailable,       // the device was lost (or stopped answering): make a new one
  kAborted,           // a process of a replicated run stopped: another failed, or all deadlocked
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const;

  // Prepends context ("while parsing foo: ") to the message.
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + ": " + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status OkStatus() { return Status(); }
inline Status InvalidArgument(std::string m) { return Status(StatusCode::kInvalidArgument, std::move(m)); }
inline Status Unimplemented(std::string m) { return Status(StatusCode::kUnimplemented, std::move(m)); }
inline Status Internal(std::string m) { return Status(StatusCode::kInternal, std::move(m)); }
inline Status ResourceExhausted(std::string m) { return Status(StatusCode::kResourceExhausted, std::move(m)); }
inline Status FailedPrecondition(std::string m) { return Status(StatusCode::kFailedPrecondition, std::move(m)); }
inline Status NotFound(std::string m) { return Status(StatusCode::kNotFound, std::move(m)); }
inline Status Unavailable(std::string m) { return Status(StatusCode::kUnavailable, std::move(m)); }
inline Status Aborted(std::string m) { return Status(StatusCode::kAborted, std::move(m)); }

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(const Status& s) : status_(s) { assert(!s.ok() && "StatusOr needs an error status or a value"); }
  StatusOr(T value) : value_(std::move(value)) {}

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { assert(ok()); return *value_; }
  const T& value() const& { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace vkxla

// Every vkxla macro carries the VKXLA_ prefix so it cannot clash with a
// consumer's own RETURN_IF_ERROR or ASSIGN_OR_RETURN.
#define VKXLA_CONCAT_INNER(a, b) a##b
#define VKXLA_CONCAT(a, b) VKXLA_CONCAT_INNER(a, b)

// Returns the Status of expr from the enclosing function if it is an error.
#define VKXLA_RETURN_IF_ERROR(expr)          \
  do {                                       \
    ::vkxla::Status vkxla_status_ = (expr);  \
    if (!vkxla_status_.ok()) return vkxla_status_; \
  } while (0)

#define VKXLA_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()

// lhs = the value of the StatusOr expr, or return its error status.
#define VKXLA_ASSIGN_OR_RETURN(lhs, expr) \
  VKXLA_ASSIGN_OR_RETURN_IMPL(VKXLA_CONCAT(vkxla_statusor_, __LINE__), lhs, expr)
