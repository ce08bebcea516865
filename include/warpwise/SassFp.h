//===- SassFp.h - How nvcc rounds a kernel's floating-point arithmetic -*- C++ -*-//
//
// nvcc contracts a floating-point product and the add that consumes it into
// one fused multiply-add (-fmad=true, its default), and which product it
// fuses depends on the shape of the code around it: merging the two sides of
// a branch can make it fuse `n * n` into `n * n + s * s` where it fused
// `s * s` before, and the program's results change in the last bit. No rule
// on the source can foresee that; the compiled code shows it.
//
// This reads nvdisasm's listing of a cubin compiled with -lineinfo and gives
// every floating-point instruction (FFMA, FMUL, FADD and their double and
// half forms) a signature: its opcode, its source line, and for each operand
// where its value comes from (the source lines and kinds of the instructions
// whose results reach it, seen through moves and selects). Two compilations
// round the same way where their signatures agree; a rewrite whose kernel's
// signatures differ from the original's outside what it rewrote, or whose
// rewritten lines hold operations of another shape, changes how nvcc
// contracts and is declined.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_SASSFP_H
#define WARPWISE_SASSFP_H

#include "llvm/ADT/StringRef.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace warpwise {

/// One SASS instruction as `nvdisasm -g -c` prints it.
struct SassInstruction {
  std::string File;    ///< The source file of its line ("" if none).
  unsigned Line = 0;   ///< Its source line (the innermost, when inlined).
  std::string Guard;   ///< "@P0", "@!P1" or "".
  std::string Opcode;  ///< "FFMA.FTZ", "BRA", ...
  std::vector<std::string> Operands; ///< As printed, without the ';'.
};

/// A function of a cubin: its code and its labels (label -> index of the
/// instruction it precedes).
struct SassFunction {
  std::string Name; ///< Mangled.
  std::vector<SassInstruction> Code;
  std::map<std::string, unsigned> Labels;
};

/// The functions of an nvdisasm -g -c listing, by mangled name.
std::map<std::string, SassFunction> parseNvdisasm(llvm::StringRef Listing);

/// \p Listing with only the lines parseNvdisasm reads (function headers,
/// line information, instructions, labels), each without its padding:
/// parseNvdisasm gives the same functions from it, and it is about a third
/// of the size (what the compile cache keeps and reads back).
std::string compactNvdisasm(llvm::StringRef Listing);

/// A source line as the comparison sees it: a line of the original text, or
/// one the rewrite wrote (Rewritten), or a line of a file the comparison
/// does not know (its text is the same in both compilations).
struct MappedLine {
  static constexpr long Rewritten = -1;
  std::string File;
  long Line = 0;
  bool operator<(const MappedLine &O) const {
    return std::tie(File, Line) < std::tie(O.File, O.Line);
  }
};
using LineMapper = std::function<MappedLine(const std::string &File,
                                            unsigned Line)>;

/// What may reach an operand of a floating-point instruction, seen through
/// moves, selects and control-flow merges: each value as its operation
/// over its operands' sources ("FMUL(load@27;load@27)"), down to loads (by
/// source line; "R" in the rewritten lines), parameters ("param"), literals ("=3FC00000") and values
/// from outside ("in").
struct FpOperand {
  std::string Sign; ///< "-" or "".
  std::string Part; ///< ".H0_H0" of a half pair.
  std::set<std::string> Defs;
};

/// A floating-point instruction as the comparison sees it.
struct FpSignature {
  std::string Line; ///< The mapped line: "132", "R" (rewritten), "f.h:7".
  std::string Opcode;
  std::string ProductSign; ///< "-" when an FMA's product is negated.
  std::vector<FpOperand> Operands;
  bool Commutes = false; ///< Whether the first two operands commute.
  std::string text() const;
};

/// The signatures of \p F's floating-point instructions, lines mapped by
/// \p Map.
std::vector<FpSignature> fpSignatures(const SassFunction &F,
                                      const LineMapper &Map);

/// Whether \p F does floating-point arithmetic nvcc may contract (it has an
/// FMUL, DMUL or HMUL2, or an FFMA whose product it formed).
bool hasFpArithmetic(const SassFunction &F);

/// Where the signatures of \p Before and \p After differ, as one sentence
/// ("line 132: FFMA ... in the original, ... in the rewrite"); std::nullopt
/// when they agree.
std::optional<std::string>
contractionDifference(const SassFunction &Before, const LineMapper &MapBefore,
                      const SassFunction &After, const LineMapper &MapAfter);

/// The same over several functions: every floating-point instruction of
/// \p Before must match one of \p After's functions and the other way
/// round (a kernel split in two: the original against the kernels that
/// replace it, with lines mapped so that code copied to new lines compares
/// equal).
std::optional<std::string>
contractionDifference(const std::vector<const SassFunction *> &Before,
                      const LineMapper &MapBefore,
                      const std::vector<const SassFunction *> &After,
                      const LineMapper &MapAfter);

/// Lines of a text before and after edits: which of the edited text's lines
/// are copies of the original's (and which), and which the edits wrote.
class EditLineMap {
public:
  /// \p Ranges: the byte ranges [Offset, Offset + Length) the edits replace
  /// in \p Original, each with the number of newlines its replacement text
  /// holds; not overlapping.
  struct Range {
    unsigned Offset, Length, NewLines;
  };
  EditLineMap(llvm::StringRef Original, std::vector<Range> Ranges);
  /// The original line a line of the original text stays (Rewritten when an
  /// edit touches it).
  long original(unsigned Line) const;
  /// The original line a line of the edited text copies, or Rewritten.
  long edited(unsigned Line) const;

private:
  std::vector<bool> TouchedOriginal; ///< By original line.
  std::vector<long> FromEdited;      ///< Edited line -> original line.
};

} // namespace warpwise

#endif
