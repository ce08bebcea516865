//===- OffloadAst.h - What the parts of offload ask of the AST --*- C++ -*-===//
//
// The small questions the directive model, the dependence test, the data
// planner and the kernel emitter all ask: the statement a directive applies
// to, the variable an access is based on and its subscripts, a bound's text
// compared as written, whether a type can cross to the device by value; and
// the positions in the input's text (OffloadSource) that the edits use.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_OFFLOAD_AST_H
#define WARPWISE_OFFLOAD_AST_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtOpenMP.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceManager.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace warpwise {
namespace offload {

/// Math functions CUDA provides on the device with the C library's meaning.
bool isDeviceMath(llvm::StringRef Name);

/// The statement a directive applies to (inside its captured regions), or
/// null for a stand-alone one (barrier, flush).
const clang::Stmt *directiveBody(const clang::OMPExecutableDirective *D);

/// A statement's children, with an OpenMP directive (an inner `omp simd`)
/// standing for the statement it applies to: its clauses' helper
/// expressions and the capture list are not code of the loop.
std::vector<const clang::Stmt *> childrenOf(const clang::Stmt *S);

/// The text of \p E with whitespace runs collapsed, for comparing bounds.
std::string normalised(const clang::ASTContext &Ctx, const clang::Expr *E);

/// \p E as the program spells it, through macros: an object-like macro
/// stays its name (`N + POLYBENCH_PADDING_FACTOR`, not `32 + 0`), a macro
/// argument its own text (`N` in `ARR1(x, N)`, not the invocation), so the
/// text follows the -D options of the build that compiles it; "" where a
/// part cannot be spelled so.
std::string spelledExpr(const clang::ASTContext &Ctx, const clang::Expr *E);

/// The macro a type is written with when one macro spells all of it
/// (`DATA_TYPE`), or "" (no macro, or more than one).
std::string spelledType(const clang::ASTContext &Ctx, clang::TypeLoc TL);

/// spelledType of \p V's declared type, for a variable neither an array,
/// a pointer nor a reference.
std::string spelledVarType(const clang::ASTContext &Ctx,
                           const clang::VarDecl *V);

/// A subscript as the dependence test compares it: normalised where it is
/// written in the file, and through a macro, what the macro expands to
/// (printed, whitespace removed), never the invocation's text.
std::string subscriptText(const clang::ASTContext &Ctx, const clang::Expr *E);

/// \p E through parentheses and implicit casts (null stays null).
const clang::Expr *strip(const clang::Expr *E);

/// The variable whose storage \p E designates: `a` in a[i][j], *(a + i),
/// a->f, s.x.
const clang::VarDecl *baseVar(const clang::Expr *E);

/// The subscripts of \p E = v[s1][s2]..., outermost first, and v.
const clang::VarDecl *subscripts(const clang::Expr *E,
                                 std::vector<const clang::Expr *> &Subs);

/// Finds the breaks and continues that belong to \p S's own iteration
/// (not to a loop or switch nested in it).
bool hasOwnJump(const clang::Stmt *S, bool Breaks, bool Continues);

/// A type the kernel can take by value: no pointers or references inside.
bool plainData(clang::QualType T);

/// A type (or the type under its pointers and arrays) declared inside a
/// function: a kernel at file scope cannot name it.
bool localType(clang::QualType Q);

/// \p S without the braces of blocks that hold only one statement.
const clang::Stmt *soleStatement(const clang::Stmt *S);

/// The variables \p A and \p B name, in order, are the same declarations
/// (`n` in both, not two different `n`s).
bool sameVariables(const clang::Expr *A, const clang::Expr *B);

/// Every variable written in a function (assigned, incremented, its address
/// taken), for the checks that an extent or bound is the same wherever it is
/// evaluated.
class WrittenVars : public clang::RecursiveASTVisitor<WrittenVars> {
public:
  /// Where each variable is written; an address taken counts as a write
  /// everywhere (AddressTaken).
  std::map<const clang::VarDecl *, std::vector<clang::SourceLocation>> At;
  std::set<const clang::VarDecl *> AddressTaken;
  bool VisitBinaryOperator(clang::BinaryOperator *B);
  bool VisitUnaryOperator(clang::UnaryOperator *U);
};

/// Whether \p S writes one of \p Vars (AstQueries' writtenVariables: also
/// through a reference argument).
bool writesAny(const clang::Stmt *S,
               const std::set<const clang::VarDecl *> &Vars);

/// The input's text and the positions in it that the edits are made at:
/// file offsets of statements (their `;` included), the whole lines of a
/// pragma, line numbers for messages.
class OffloadSource {
public:
  OffloadSource(clang::ASTContext &Ctx, llvm::StringRef Contents)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), LO(Ctx.getLangOpts()),
        Contents(Contents) {}

  clang::ASTContext &Ctx;
  const clang::SourceManager &SM;
  const clang::LangOptions &LO;
  llvm::StringRef Contents;

  unsigned offset(clang::SourceLocation L) const {
    return SM.getFileOffset(SM.getExpansionLoc(L));
  }
  unsigned lineStart(unsigned Off) const {
    while (Off > 0 && Contents[Off - 1] != '\n')
      --Off;
    return Off;
  }
  /// Offset just past \p S, its `;` included.
  unsigned stmtEnd(const clang::Stmt *S) const;
  /// stmtEnd, and for a directive the end of the statement it applies to.
  unsigned endOf(const clang::Stmt *S) const;
  /// Where a statement's own code starts: for a directive, the statement it
  /// applies to (the pragma may sit inside an #ifdef of its own).
  unsigned headOffset(const clang::Stmt *S) const;
  /// The whole lines of \p D's pragma, continuation lines included, with
  /// their newline.
  std::pair<unsigned, unsigned>
  pragmaLines(const clang::OMPExecutableDirective *D) const;
  /// The line of \p S's last character, as text.
  std::string lastLineOf(const clang::Stmt *S) const {
    return std::to_string(
        inputLine(SM.getLineNumber(SM.getMainFileID(), endOf(S))));
  }
  std::string lineOf(clang::SourceLocation L) const {
    return std::to_string(lineNumber(L));
  }
  /// The input's line of \p L (the user's, also when a split input is
  /// translated).
  unsigned lineNumber(clang::SourceLocation L) const {
    return inputLine(SM.getExpansionLineNumber(L));
  }
  /// The input's line of line \p Line of the text parsed: a split input
  /// (OffloadOptions::SplitAfterLines) has three lines more after each
  /// split line; those count as the line after it.
  /// The lines a region split adds after a loop: `}`, the region's pragma
  /// and `{` (Offloader::splitMixedGroups writes them).
  static constexpr unsigned SplitLinesAdded = 3;
  unsigned inputLine(unsigned Line) const {
    unsigned Shift = 0;
    for (unsigned After : SplitAfterLines) {
      if (Line <= After + Shift)
        break;
      if (Line <= After + Shift + SplitLinesAdded)
        return After + 1;
      Shift += SplitLinesAdded;
    }
    return Line - Shift;
  }
  std::vector<unsigned> SplitAfterLines; ///< Sorted, the input's lines.
};

} // namespace offload
} // namespace warpwise

#endif
