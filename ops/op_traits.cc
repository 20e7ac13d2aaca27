#include "ops/op_traits.h"

namespace vkxla {

bool IsElementwiseUnary(Opcode op) {
  switch (op) {
    case Opcode::kAbs: case Opcode::kCbrt: case Opcode::kCeil: case Opcode::kClz: case Opcode::kCos:
    case Opcode::kCosh: case Opcode::kErf: case Opcode::kExp: case Opcode::kExpm1: case Opcode::kFloor:
    case Opcode::kImag: case Opcode::kIsFinite: case Opcode::kLog: case Opcode::kLog1p: case Opcode::kLogistic:
    case Opcode::kNegate: case Opcode::kNot: case Opcode::kPopulationCount: case Opcode::kReal:
    case Opcode::kRoundNearestAfz: case Opcode::kRoundNearestEven: case Opcode::kRsqrt: case Opcode::kSign:
    case Opcode::kSin: case Opcode::kSqrt: case Opcode::kTan: case Opcode::kTanh: case Opcode::kConvert:
    case Opcode::kBitcastConvert: case Opcode::kReducePrecision:
      return true;
    default:
      return false;
  }
}

bool IsElementwiseBinary(Opcode op) {
  switch (op) {
    case Opcode::kAdd: case Opcode::kAnd: case Opcode::kAtan2: case Opcode::kComplex: case Opcode::kCompare:
    case Opcode::kDivide: case Opcode::kMaximum: case Opcode::kMinimum: case Opcode::kMultiply: case Opcode::kOr:
    case Opcode::kPower: case Opcode::kRemainder: case Opcode::kShiftLeft: case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical: case Opcode::kSubtract: case Opcode::kXor:
      return true;
    default:
      return false;
  }
}

bool IsElementwiseTernary(Opcode op) { return op == Opcode::kSelect || op == Opcode::kClamp; }

bool AcceptsResultAccuracy(Opcode op) {
  switch (op) {
    case Opcode::kCbrt: case Opcode::kCos: case Opcode::kCosh: case Opcode::kErf: case Opcode::kExp:
    case Opcode::kExpm1: case Opcode::kLog: case Opcode::kLog1p: case Opcode::kLogistic: case Opcode::kRsqrt:
    case Opcode::kSin: case Opcode::kSqrt: case Opcode::kTan: case Opcode::kTanh:
      return true;
    default:
      return false;
  }
}

bool IsAssociativeAndCommutative(Opcode op) {
  switch (op) {
    case Opcode::kAdd: case Opcode::kMultiply: case Opcode::kMaximum: case Opcode::kMinimum:
    case Opcode::kAnd: case Opcode::kOr: case Opcode::kXor:
      return true;
    default:
      return false;
  }
}

}  // namespace vkxla
