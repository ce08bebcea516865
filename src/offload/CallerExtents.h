//===- CallerExtents.h - A pointer parameter's extent from its callers ---===//
//
// A loop in a function that takes its arrays as pointers (`void step(int n,
// const float *in, float *out)`) needs their extents to copy them to the
// device, and only the function's callers know them. Every call of the
// function in the file is followed to what its argument points to: a
// malloc, calloc or new[] in the caller (before the call, in a block that
// holds it, the size's variables unchanged since), the caller's own pointer
// parameter (followed to its callers in turn, a few calls deep), a pointer
// copied from one of those, buffers the caller swaps with one of the same
// size, or an array. Each size is then written in the function's own
// parameters through the arguments of the call (`n * n` in main, at
// `step(n, a, b)`, is `n * n` of step's `n`); every call must give the same
// text, and those parameters must not change in the function.
//
// Only a function with internal linkage is followed: another file could call
// one with external linkage with other arrays. The sizes are written again
// from the AST with their constants as values and every conversion explicit,
// so that no name, macro or type can mean something else in the function.
// The pointers and size variables must be used only by value in the callers
// (no reference bound to them, no lambda capturing them).
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_OFFLOAD_CALLER_EXTENTS_H
#define WARPWISE_OFFLOAD_CALLER_EXTENTS_H

#include "DataExtents.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace warpwise {
namespace offload {

/// An element count as the function's own parameters give it.
struct CallerCount {
  std::string Text; ///< `(n * n)`, in the function's parameter names.
  std::vector<const clang::VarDecl *> Vars; ///< The parameters it reads.
  std::string From; ///< "line 21 passes the allocation of 'a' at ..."
};

class CallerExtents {
public:
  /// \p WholeProgram: the file is the whole program (--whole-program), so
  /// the calls of a function with external linkage are all in it too.
  explicit CallerExtents(const OffloadSource &Src, bool WholeProgram = false);

  /// The element count of \p V, a pointer parameter of \p F, from every
  /// call of F in the file; false with \p Why (a clause: "its call at line
  /// 30 passes 'p + 1'") otherwise.
  bool countOf(const clang::FunctionDecl *F, const clang::ParmVarDecl *V,
               CallerCount &Out, std::string &Why);

  struct CallSite {
    const clang::CallExpr *Expr;
    const clang::FunctionDecl *Caller; ///< Null in a lambda.
  };
  /// The calls of \p F in the file.
  const std::vector<CallSite> &callsOf(const clang::FunctionDecl *F);
  /// Whether a call of \p F may be out of view (\p Why says why): another
  /// file, a function pointer, a template or member function.
  bool mayBeCalledElsewhere(const clang::FunctionDecl *F, std::string &Why);

  /// How \p X is used in \p G other than by value ("" if it is not):
  /// assignments count as reads before \p Before (everywhere when
  /// \p Before is 0 and \p Assignments).
  std::string otherUse(const clang::FunctionDecl *G, const clang::VarDecl *X,
                       unsigned Before, bool Assignments);

private:
  /// A count as text pieces around the variables it reads:
  /// Text[0] Vars[0] Text[1] ... Vars[n-1] Text[n].
  struct Count {
    std::vector<std::string> Text{""};
    std::vector<const clang::VarDecl *> Vars;
    /// The type each variable had where the size was computed.
    std::vector<clang::QualType> Types;
    std::string From;
    std::string render(const clang::ASTContext &Ctx) const;
    void append(const std::string &S) { Text.back() += S; }
    void append(const Count &C);
  };
  bool paramCount(const clang::FunctionDecl *F, unsigned Index, Count &Out,
                  std::string &Why, unsigned Depth);
  bool inCallee(const CallSite &C, const clang::FunctionDecl *F, Count &Out,
                std::string &Why);
  bool pointerCount(const clang::VarDecl *W, const CallSite &C,
                    clang::QualType Pointee, Count &Out, std::string &Why,
                    unsigned Depth, bool Swaps = true);
  bool swapsAgree(const clang::VarDecl *W, const CallSite &C,
                  clang::QualType Pointee, const Count &Mine, std::string &Why,
                  unsigned Depth);
  bool allocationCount(const clang::Expr *Alloc, clang::QualType Pointee,
                       Count &Out, std::string &Why);
  /// \p E as the caller computes it; without its factor
  /// `sizeof(DropSizeofOf)` when that type is given (false if it has none).
  bool exprCount(const clang::Expr *E, Count &Out, std::string &Why,
                 clang::QualType DropSizeofOf);
  bool stableUntilCall(const Count &Count, const clang::FunctionDecl *G,
                       const clang::Stmt *Allocation, std::string &Why);
  bool unchangedIn(const clang::FunctionDecl *F, const clang::VarDecl *P);
  const FunctionData &dataOf(const clang::FunctionDecl *G);
  std::string lineOf(const clang::Stmt *S) const;

  const OffloadSource &Src;
  clang::ASTContext &Ctx;
  std::map<const clang::FunctionDecl *, std::vector<CallSite>> Calls;
  /// Named other than as a call's callee (a function pointer), or in a
  /// template's unresolved call: not every call can be followed.
  std::set<const clang::FunctionDecl *> NotFollowed;
  std::map<const clang::FunctionDecl *, FunctionData> Data;
  bool WholeProgram;
};

} // namespace offload
} // namespace warpwise

#endif
