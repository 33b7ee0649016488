/// @file program.cuh
/// @brief The interpreter of transaction programs: the bytecode io.gstm.core.program.Opcodes
///        defines, run inside the algorithms' transactions (PR-STM under the semantic contention
///        manager, CSMV) with no compiler at run time. Twin of io.gstm.core.program.Interpreter;
///        both follow io.gstm.core.program.Semantics (Java's arithmetic, integer overflow
///        checked), so the two engines compute the same bits (NaN payloads aside).
///
/// The host verifies every image before it comes here (opcodes, registers, constants, slots,
/// regions, jump targets; Bytecode.verify), checks indices against regions and arrays at run
/// time, and bounds each attempt by the program's step count: no image can make the
/// interpreter touch memory outside the store and the batch, or run for ever.
///
/// Image (uint32 words, built by io.gstm.core.cuda.ProgramImage): a header, the batch's column
/// table (word offset into the column buffer, width), one 16-word directory entry per program
/// (see Dir), then each program's code, constants (two words each), slot-to-column table,
/// array-parameter table (first slot, length), region table (store region, length) and output
/// registers.
#pragma once
#include <cstdint>

#include "gstm/batch.cuh"

namespace gstm::program {

/// Opcodes; io.gstm.core.program.Opcodes uses the same numbers (a test compares them).
enum Op : uint32_t {
  kRet = 0, kRetry = 1, kAbort = 2, kJmp = 3, kJz = 4, kJnz = 5, kMov = 6, kLdk = 7, kLdp = 8,
  kLdpa = 9, kRd = 10, kRds = 11, kWr = 12, kSum = 13, kLen = 14, kLoop = 15, kNot = 16,
  kCvt = 17,
  kAdd = 20, kSub = 24, kMul = 28, kDiv = 32, kRem = 36, kMin = 40, kMax = 44, kNeg = 48,
  kAbs = 52, kEq = 56, kNe = 60, kLt = 64, kLe = 68,
  kAnd = 72, kOr = 74, kXor = 76, kShl = 78, kShr = 80, kUshr = 82, kBnot = 84, kSqrt = 86,
  kWadd = 88, kWsub = 90, kWmul = 92,
  kOpCount = 94
};

/// Outcomes a program ends with (io.gstm.core.batch.Outcome's codes).
enum End : uint8_t {
  kUserAbort = 5, kOutOfRange = 6, kDivideByZero = 7, kLoopLimit = 8, kOverflow = 9
};

constexpr uint32_t kMagic = 0x47535450u;  ///< "GSTP"
constexpr uint32_t kVersion = 3;  ///< Opcodes.VERSION (2: integer overflow; 3: a lock bound)
constexpr uint32_t kHeaderWords = 8;
constexpr uint32_t kDirWords = 17;
constexpr uint32_t kMaxRegisters = 64;

/// Image header words.
enum Header : uint32_t { kHMagic = 0, kHVersion, kHPrograms, kHColumns, kHWords, kHRegisters,
                         kHOutputs, kHPad };

/// A program's directory entry: word offsets into the image and counts.
enum Dir : uint32_t { kDCode = 0, kDCodeLen, kDConst, kDConstCount, kDSlots, kDSlotCount,
                      kDArrays, kDArrayCount, kDRegions, kDRegionCount, kDOutputs, kDOutputCount,
                      kDRegisters, kDSteps, kDFlags,
                      kDLockRows,  ///< each region's lock row (compiled programs only)
                      kDWordBytes  ///< each region's word size (compiled programs only)
};

/// The batch a program kernel runs. Host packer: io.gstm.core.cuda.ProgramKernel.
struct Table {
  const uint32_t* image;     ///< [image_words]
  const uint32_t* type;      ///< [tx_count] program of each transaction
  const uint32_t* cols;      ///< column data; a column at its word offset (8-byte ones aligned)
  long long* results;        ///< [tx_count] first output of committed read-only transactions
  long long* outputs;        ///< [outputs * tx_count] outputs of each finished attempt
  int32_t* abort_codes;      ///< [tx_count] user abort codes
  uint32_t tx_count;
  uint32_t image_words;
  uint32_t registers;        ///< registers per thread in the shared register file
  uint32_t outputs_per_tx;   ///< output slots per transaction
};
static_assert(sizeof(Table) == 64, "host packer assumes 64 bytes");

// ---- Java's arithmetic, with integer overflow checked -----------------------------------------

__device__ __forceinline__ float f32(uint64_t r) { return __int_as_float(static_cast<int>(r)); }
__device__ __forceinline__ double f64(uint64_t r) { return __longlong_as_double(static_cast<long long>(r)); }
__device__ __forceinline__ uint64_t bits(float v) {
  return static_cast<uint32_t>(__float_as_int(v));
}
__device__ __forceinline__ uint64_t bits(double v) {
  return static_cast<uint64_t>(__double_as_longlong(v));
}
__device__ __forceinline__ uint64_t i32(int32_t v) {
  return static_cast<uint64_t>(static_cast<int64_t>(v));
}
__device__ __forceinline__ int32_t as_i32(uint64_t r) { return static_cast<int32_t>(r); }

/// Checked integer arithmetic (Semantics.add32 and kin): each sets v and returns true when the
/// exact result overflows its type. int32 is computed exactly in 64 bits and compared with its
/// narrowing; int64 add and subtract test the sign bits; int64 multiply compares the high half of
/// the 128-bit product with the low half's sign. A few ALU instructions each (one mul.hi for the
/// int64 product), against the interpreter's dispatch and shared-memory register traffic.
__device__ __forceinline__ bool narrow_overflows(long long exact, uint64_t& v) {
  v = i32(static_cast<int32_t>(exact));
  return exact != static_cast<int32_t>(exact);
}
__device__ __forceinline__ bool add64_overflows(uint64_t x, uint64_t y, uint64_t& v) {
  v = x + y;
  return ((x ^ v) & (y ^ v)) >> 63;
}
__device__ __forceinline__ bool sub64_overflows(uint64_t x, uint64_t y, uint64_t& v) {
  v = x - y;
  return ((x ^ y) & (x ^ v)) >> 63;
}
__device__ __forceinline__ bool mul64_overflows(uint64_t x, uint64_t y, uint64_t& v) {
  v = x * y;
  const long long high = __mul64hi(static_cast<long long>(x), static_cast<long long>(y));
  return high != (static_cast<long long>(v) >> 63);
}

/// Math.min / Math.max as Java defines them (NaN wins; -0.0 below 0.0).
template <class F>
__device__ __forceinline__ F java_min(F a, F b) {
  if (a != a) return a;
  if (a == F(0) && b == F(0) && signbit(b)) return b;
  return a <= b ? a : b;
}
template <class F>
__device__ __forceinline__ F java_max(F a, F b) {
  if (a != a) return a;
  if (a == F(0) && b == F(0) && signbit(a)) return b;
  return a >= b ? a : b;
}

/// (int) / (long) of a float as Java defines it: NaN is 0, out of range saturates.
template <class I, class F>
__device__ __forceinline__ I java_to_int(F v, F lo, F hi, I min_value, I max_value) {
  if (v != v) return 0;
  if (v >= hi) return max_value;
  if (v <= lo) return min_value;
  return static_cast<I>(v);  // in range: truncation toward zero
}

/// Conversion between type codes (0 int32, 1 int64, 2 float32, 3 float64, 4 bool).
__device__ __forceinline__ uint64_t convert(uint64_t a, uint32_t from, uint32_t to) {
  if (from == to) return a;
  if (from == 0 || from == 4) {
    const int32_t v = as_i32(a);
    switch (to) {
      case 0: return i32(v);
      case 1: return static_cast<uint64_t>(static_cast<int64_t>(v));
      case 2: return bits(__int2float_rn(v));
      default: return bits(static_cast<double>(v));
    }
  }
  if (from == 1) {
    const long long v = static_cast<long long>(a);
    switch (to) {
      case 0: return i32(static_cast<int32_t>(v));
      case 2: return bits(__ll2float_rn(v));
      default: return bits(__ll2double_rn(v));
    }
  }
  if (from == 2) {
    const float v = f32(a);
    switch (to) {
      case 0: return i32(java_to_int<int32_t, float>(v, -2147483648.0f, 2147483648.0f,
                                                     INT32_MIN, INT32_MAX));
      case 1: return static_cast<uint64_t>(java_to_int<long long, float>(
          v, -9223372036854775808.0f, 9223372036854775808.0f, LLONG_MIN, LLONG_MAX));
      default: return bits(static_cast<double>(v));
    }
  }
  const double v = f64(a);
  switch (to) {
    case 0: return i32(java_to_int<int32_t, double>(v, -2147483648.0, 2147483648.0, INT32_MIN,
                                                    INT32_MAX));
    case 1: return static_cast<uint64_t>(java_to_int<long long, double>(
        v, -9223372036854775808.0, 9223372036854775808.0, LLONG_MIN, LLONG_MAX));
    default: return bits(__double2float_rn(v));
  }
}

// ---- register files ---------------------------------------------------------------------------

/// Registers in shared memory, register r of this thread at base[r * stride]: a warp's accesses
/// to one register fall in consecutive words, and the file does not compete with the store's
/// data for L1.
struct SharedRegs {
  unsigned long long* base;
  uint32_t stride;
  __device__ __forceinline__ uint64_t get(uint32_t r) const { return base[r * stride]; }
  __device__ __forceinline__ void set(uint32_t r, uint64_t v) const { base[r * stride] = v; }
};

/// Registers in this thread's local memory (the CSMV kernel, whose shared memory is the server's).
struct LocalRegs {
  unsigned long long r[kMaxRegisters];
  __device__ __forceinline__ uint64_t get(uint32_t i) const { return r[i]; }
  __device__ __forceinline__ void set(uint32_t i, uint64_t v) { r[i] = v; }
};

/// The typed arithmetic, comparison and bit operations (opcodes kAdd and up): v of x and y (y
/// unused by the unary ones). `fault` becomes the outcome that ends the transaction (kOverflow,
/// kDivideByZero; kOutOfRange for a number that is no such opcode) and v is then 0. Shared by the
/// interpreter and the compiled programs (jit/program_jit.cu), so both compute the same bits.
__device__ __forceinline__ uint64_t alu(uint32_t op, uint64_t x, uint64_t y, uint8_t& fault) {
  uint64_t v = 0;
  bool overflow = false;  // set by the checked integer operations
  switch (op) {
    case kAdd: overflow = narrow_overflows(static_cast<long long>(as_i32(x)) + as_i32(y), v); break;
    case kAdd + 1: overflow = add64_overflows(x, y, v); break;
    case kAdd + 2: v = bits(__fadd_rn(f32(x), f32(y))); break;
    case kAdd + 3: v = bits(__dadd_rn(f64(x), f64(y))); break;
    case kSub: overflow = narrow_overflows(static_cast<long long>(as_i32(x)) - as_i32(y), v); break;
    case kSub + 1: overflow = sub64_overflows(x, y, v); break;
    case kSub + 2: v = bits(__fsub_rn(f32(x), f32(y))); break;
    case kSub + 3: v = bits(__dsub_rn(f64(x), f64(y))); break;
    case kMul: overflow = narrow_overflows(static_cast<long long>(as_i32(x)) * as_i32(y), v); break;
    case kMul + 1: overflow = mul64_overflows(x, y, v); break;
    case kMul + 2: v = bits(__fmul_rn(f32(x), f32(y))); break;
    case kMul + 3: v = bits(__dmul_rn(f64(x), f64(y))); break;
    case kWadd: v = i32(static_cast<int32_t>(static_cast<uint32_t>(x) + static_cast<uint32_t>(y))); break;
    case kWadd + 1: v = x + y; break;
    case kWsub: v = i32(static_cast<int32_t>(static_cast<uint32_t>(x) - static_cast<uint32_t>(y))); break;
    case kWsub + 1: v = x - y; break;
    case kWmul: v = i32(static_cast<int32_t>(static_cast<uint32_t>(x) * static_cast<uint32_t>(y))); break;
    case kWmul + 1: v = x * y; break;
    case kDiv:
    case kRem: {
      const int32_t p = as_i32(x);
      const int32_t q = as_i32(y);
      if (q == 0) {
        fault = kDivideByZero;
        return 0;
      }
      if (q == -1) {  // MIN / -1 overflows, MIN % -1 is 0 (C++ leaves both undefined)
        overflow = op == kDiv && p == INT32_MIN;
        v = op == kDiv ? i32(static_cast<int32_t>(0u - static_cast<uint32_t>(p))) : 0;
      } else {
        v = i32(op == kDiv ? p / q : p % q);
      }
      break;
    }
    case kDiv + 1:
    case kRem + 1: {
      const long long p = static_cast<long long>(x);
      const long long q = static_cast<long long>(y);
      if (q == 0) {
        fault = kDivideByZero;
        return 0;
      }
      if (q == -1) {
        overflow = op == kDiv + 1 && p == LLONG_MIN;
        v = op == kDiv + 1 ? 0ull - x : 0;
      } else {
        v = static_cast<uint64_t>(op == kDiv + 1 ? p / q : p % q);
      }
      break;
    }
    case kDiv + 2: v = bits(__fdiv_rn(f32(x), f32(y))); break;
    case kDiv + 3: v = bits(__ddiv_rn(f64(x), f64(y))); break;
    case kRem + 2: v = bits(fmodf(f32(x), f32(y))); break;
    case kRem + 3: v = bits(fmod(f64(x), f64(y))); break;
    case kMin: v = i32(min(as_i32(x), as_i32(y))); break;
    case kMin + 1: v = static_cast<uint64_t>(min(static_cast<long long>(x), static_cast<long long>(y))); break;
    case kMin + 2: v = bits(java_min(f32(x), f32(y))); break;
    case kMin + 3: v = bits(java_min(f64(x), f64(y))); break;
    case kMax: v = i32(max(as_i32(x), as_i32(y))); break;
    case kMax + 1: v = static_cast<uint64_t>(max(static_cast<long long>(x), static_cast<long long>(y))); break;
    case kMax + 2: v = bits(java_max(f32(x), f32(y))); break;
    case kMax + 3: v = bits(java_max(f64(x), f64(y))); break;
    case kNeg: overflow = narrow_overflows(-static_cast<long long>(as_i32(x)), v); break;
    case kNeg + 1: overflow = sub64_overflows(0, x, v); break;
    case kNeg + 2: v = bits(-f32(x)); break;
    case kNeg + 3: v = bits(-f64(x)); break;
    case kAbs: {
      const long long m = as_i32(x);
      overflow = narrow_overflows(m < 0 ? -m : m, v);
      break;
    }
    case kAbs + 1:
      overflow = static_cast<long long>(x) == LLONG_MIN;
      v = static_cast<long long>(x) < 0 ? 0ull - x : x;
      break;
    case kAbs + 2: v = bits(fabsf(f32(x))); break;
    case kAbs + 3: v = bits(fabs(f64(x))); break;
    case kEq: v = as_i32(x) == as_i32(y); break;
    case kEq + 1: v = x == y; break;
    case kEq + 2: v = f32(x) == f32(y); break;
    case kEq + 3: v = f64(x) == f64(y); break;
    case kNe: v = as_i32(x) != as_i32(y); break;
    case kNe + 1: v = x != y; break;
    case kNe + 2: v = f32(x) != f32(y); break;
    case kNe + 3: v = f64(x) != f64(y); break;
    case kLt: v = as_i32(x) < as_i32(y); break;
    case kLt + 1: v = static_cast<long long>(x) < static_cast<long long>(y); break;
    case kLt + 2: v = f32(x) < f32(y); break;
    case kLt + 3: v = f64(x) < f64(y); break;
    case kLe: v = as_i32(x) <= as_i32(y); break;
    case kLe + 1: v = static_cast<long long>(x) <= static_cast<long long>(y); break;
    case kLe + 2: v = f32(x) <= f32(y); break;
    case kLe + 3: v = f64(x) <= f64(y); break;
    case kAnd: v = i32(as_i32(x) & as_i32(y)); break;
    case kAnd + 1: v = x & y; break;
    case kOr: v = i32(as_i32(x) | as_i32(y)); break;
    case kOr + 1: v = x | y; break;
    case kXor: v = i32(as_i32(x) ^ as_i32(y)); break;
    case kXor + 1: v = x ^ y; break;
    case kShl: v = i32(static_cast<int32_t>(static_cast<uint32_t>(x) << (y & 31u))); break;
    case kShl + 1: v = x << (y & 63u); break;
    case kShr: v = i32(as_i32(x) >> (y & 31u)); break;
    case kShr + 1: v = static_cast<uint64_t>(static_cast<long long>(x) >> (y & 63u)); break;
    case kUshr: v = i32(static_cast<int32_t>(static_cast<uint32_t>(x) >> (y & 31u))); break;
    case kUshr + 1: v = x >> (y & 63u); break;
    case kBnot: v = i32(~as_i32(x)); break;
    case kBnot + 1: v = ~x; break;
    case kSqrt: v = bits(__fsqrt_rn(f32(x))); break;
    case kSqrt + 1: v = bits(__dsqrt_rn(f64(x))); break;
    default:  // the host's verifier lets no other opcode through
      fault = kOutOfRange;
      return 0;
  }
  if (overflow) {
    fault = kOverflow;
    return 0;
  }
  return v;
}

// ---- the interpreter --------------------------------------------------------------------------

/// Loads slot `slot` of transaction t: a 4-byte column sign-extended, or an 8-byte one.
__device__ __forceinline__ uint64_t column(const Table& tab, const uint32_t* img, uint32_t slots,
                                           uint32_t slot, uint32_t t) {
  const uint32_t c = img[slots + slot];
  const size_t at = img[kHeaderWords + 2 * c];  // size_t: at + t may pass 2^32 words
  if (img[kHeaderWords + 2 * c + 1] == 4) return i32(static_cast<int32_t>(tab.cols[at + t]));
  return reinterpret_cast<const unsigned long long*>(tab.cols + at)[t];
}

/// Runs program `type` for transaction t inside `tx`: returns the first output (0 if none) when
/// the body ends normally (the caller commits), else the transaction has been told
/// (tx.semantic_conflict(), tx.end(outcome)) or has failed on its own (!tx.active()).
/// `Tx` offers read, write, read_shared, sum_range, semantic_conflict, end and active.
template <class Tx, class Regs>
__device__ __forceinline__ long long interpret(Tx& tx, const Table& tab, const uint32_t* img,
                                               Regs& R, uint32_t type, uint32_t t) {
  const uint32_t* dir = img + kHeaderWords + 2 * img[kHColumns] + kDirWords * type;
  const uint32_t* code = img + dir[kDCode];
  const uint32_t consts = dir[kDConst];
  const uint32_t slots = dir[kDSlots];
  const uint32_t arrays = dir[kDArrays];
  const uint32_t regions = dir[kDRegions];
  uint32_t budget = dir[kDSteps];
  uint32_t pc = 0;
  // Every attempt starts from zeroed registers, as on the JVM: what a hand-made image reads
  // before it writes is then the same on both engines.
  for (uint32_t r = 0; r < dir[kDRegisters]; ++r) R.set(r, 0);
  while (true) {
    const uint32_t w = code[pc++];
    const uint32_t op = w & 0xffu;
    const uint32_t a = (w >> 8) & 0xffu;
    const uint32_t b = (w >> 16) & 0xffu;
    const uint32_t c = w >> 24;
    switch (op) {
      case kRet: {
        const uint32_t outs = dir[kDOutputs];
        const uint32_t n = dir[kDOutputCount];
        long long first = 0;
        for (uint32_t o = 0; o < n; ++o) {
          const long long v = static_cast<long long>(R.get(img[outs + o]));
          tab.outputs[static_cast<size_t>(o) * tab.tx_count + t] = v;
          if (o == 0) first = v;
        }
        return first;
      }
      case kRetry:
        tx.semantic_conflict();
        return 0;
      case kAbort:
        tab.abort_codes[t] = as_i32(R.get(a));
        tx.end(kUserAbort);
        return 0;
      case kJmp:
      case kJz:
      case kJnz:
        // Only a backward jump can make the code run longer than its length: taken backward
        // jumps count against the step bound, so no image runs for ever (Interpreter.java and
        // JvmCompiler.java count the same jumps).
        if (op == kJmp || (R.get(a) == 0) == (op == kJz)) {
          const uint32_t target = op == kJmp ? w >> 8 : (b | c << 8);
          if (target < pc && budget-- == 0) {  // pc is already past the jump
            tx.end(kLoopLimit);
            return 0;
          }
          pc = target;
        }
        break;
      case kMov:
        R.set(a, R.get(b));
        break;
      case kLdk: {
        const uint32_t k = consts + 2 * (b | c << 8);
        R.set(a, static_cast<uint64_t>(img[k]) | static_cast<uint64_t>(img[k + 1]) << 32);
        break;
      }
      case kLdp:
        R.set(a, column(tab, img, slots, b | c << 8, t));
        break;
      case kLdpa: {
        const int32_t i = as_i32(R.get(c));
        const uint32_t first = img[arrays + 2 * b];
        if (i < 0 || static_cast<uint32_t>(i) >= img[arrays + 2 * b + 1]) {
          tx.end(kOutOfRange);
          return 0;
        }
        R.set(a, column(tab, img, slots, first + static_cast<uint32_t>(i), t));
        break;
      }
      case kRd:
      case kRds: {
        const int32_t i = as_i32(R.get(c));
        if (i < 0 || static_cast<uint32_t>(i) >= img[regions + 2 * b + 1]) {
          tx.end(kOutOfRange);
          return 0;
        }
        const uint32_t region = img[regions + 2 * b];
        R.set(a, op == kRd ? tx.read(region, static_cast<uint32_t>(i))
                           : tx.read_shared(region, static_cast<uint32_t>(i)));
        if (!tx.active()) return 0;
        break;
      }
      case kWr: {
        const int32_t i = as_i32(R.get(b));
        if (i < 0 || static_cast<uint32_t>(i) >= img[regions + 2 * a + 1]) {
          tx.end(kOutOfRange);
          return 0;
        }
        tx.write(img[regions + 2 * a], static_cast<uint32_t>(i), R.get(c));
        if (!tx.active()) return 0;
        break;
      }
      case kSum: {
        const int32_t first = as_i32(R.get(c));
        const int32_t count = as_i32(R.get(code[pc++]));
        const uint32_t len = img[regions + 2 * b + 1];
        if (first < 0 || static_cast<uint32_t>(first) >= len || count < 0 ||
            static_cast<uint32_t>(count) > len) {
          tx.end(kOutOfRange);
          return 0;
        }
        R.set(a, static_cast<uint64_t>(tx.sum_range(img[regions + 2 * b],
                                                    static_cast<uint32_t>(first),
                                                    static_cast<uint32_t>(count), len)));
        if (!tx.active()) return 0;
        break;
      }
      case kLen:
        R.set(a, img[regions + 2 * b + 1]);
        break;
      case kLoop: {
        const long long trips = static_cast<long long>(as_i32(R.get(b))) - as_i32(R.get(a));
        if (trips > static_cast<long long>(static_cast<int32_t>(code[pc++]))) {
          tx.end(kLoopLimit);
          return 0;
        }
        break;
      }
      case kNot:
        R.set(a, R.get(b) ^ 1u);
        break;
      case kCvt:
        R.set(a, convert(R.get(b), c >> 4, c & 15u));
        break;
      default: {
        uint8_t fault = 0;
        const uint64_t v = alu(op, R.get(b), R.get(c), fault);
        if (fault != 0) {
          tx.end(fault);
          return 0;
        }
        R.set(a, v);
        break;
      }
    }
  }
}

/// The program's read-only flag (CSMV runs read-only programs on a snapshot without a read set).
__device__ __forceinline__ bool read_only(const uint32_t* img, uint32_t type) {
  return (img[kHeaderWords + 2 * img[kHColumns] + kDirWords * type + kDFlags] & 1u) != 0;
}

}  // namespace gstm::program
