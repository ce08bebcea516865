//===- ExecutionModel.h - Warp issue slots along executed paths -*- C++ -*-===//
//
// The model behind the fuse and meld decisions (issue #14). It estimates
// what a warp issues, not how large the code is:
//  - loops count their trips (constant, bounded by an enclosing loop's
//    variable, or an assumed count that the caller reports);
//  - a branch costs both of its sides only in warps whose lanes disagree,
//    and which warps those are follows from the launch's block shape;
//  - straight-line kernels whose DRAM or indexed-__constant__ traffic
//    outweighs their issue are bound by that traffic, not by issue.
// The constants live in rules/costs.json.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_EXECUTION_MODEL_H
#define WARPWISE_EXECUTION_MODEL_H

#include "warpwise/Costs.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
class ForStmt;
class IfStmt;
class Stmt;
class VarDecl;
} // namespace clang

namespace warpwise {

/// A loop's trip count as the model uses it.
struct TripCount {
  double Trips = 1;
  /// The count is a constant (or bounded by an enclosing constant loop):
  /// nvcc can unroll it.
  bool Constant = false;
  /// Set when the count was assumed; says what was assumed.
  std::string Assumption;
};

/// Counts issue slots with trip-weighted loops. Inner branches count both
/// sides (a warp of lanes that disagree runs both) plus DivergedBranch.
class IssueCounter {
public:
  IssueCounter(clang::ASTContext &Ctx, const CostTable &C) : Ctx(Ctx), C(C) {}

  double slots(const clang::Stmt *S);
  TripCount trips(const clang::ForStmt *F);
  /// Assumptions made so far ("the loop at line 12 ...").
  const std::vector<std::string> &assumptions() const { return Assumed; }
  /// An enclosing loop variable's mean value while counting a nested loop.
  std::map<const clang::VarDecl *, double> MeanOf;

  double exprSlots(const clang::Stmt *S);
  /// Straight-line code small enough for nvcc to predicate rather than
  /// branch around (rules/costs.json: predicate_max_slots).
  bool predicated(const clang::Stmt *S);
  /// The same for a branch nested inside a side (inner_predicate_max_slots).
  bool innerPredicated(const clang::Stmt *S);

private:
  clang::ASTContext &Ctx;
  const CostTable &C;
  std::vector<std::string> Assumed;
  std::set<const clang::VarDecl *> ConstantVars;
  double Enclosing = 1; ///< Product of the enclosing loops' trips.
  unsigned CallDepth = 0;
};

/// "16", "7.5": a trip count as the remarks print it.
std::string formatTrips(double T);

/// The share of warps whose active lanes disagree on \p If's condition.
struct WarpMix {
  bool Known = false;
  double Fraction = 1; ///< Mixed warp-executions over all warp-executions.
  std::string Basis;   ///< How it was found, for the remark.
};

/// Evaluates \p If's condition lane by lane for blocks of \p Threads threads
/// (one-dimensional), over the iteration space of the loops around it and
/// under the conditions of the ifs around it. \p Instance is the template
/// specialisation whose arguments fill template parameters (or null).
WarpMix warpMixing(clang::ASTContext &Ctx, const clang::FunctionDecl *FD,
                   const clang::FunctionDecl *Instance, const clang::IfStmt *If,
                   unsigned Threads);

/// What packing the threads that pass a guard onto the lowest threads of
/// the block would change (thread reallocation): warp-executions over the
/// iteration space of the loops around \p If, for blocks of \p Threads.
struct GuardPacking {
  bool Known = false;
  double Reached = 0; ///< Warps with a lane that reaches the guard.
  double Active = 0;  ///< Warps with a lane that passes it, as written.
  double Mixed = 0;   ///< Warps whose lanes disagree on it, as written.
  double Packed = 0;  ///< Warps with such a lane once the lanes are packed.
  std::string Basis;
};
GuardPacking guardPacking(clang::ASTContext &Ctx, const clang::FunctionDecl *FD,
                          const clang::FunctionDecl *Instance,
                          const clang::IfStmt *If, unsigned Threads);

/// Issue against DRAM / constant-cache traffic of a kernel, in slots per
/// warp; only meaningful for code outside loops of unknown length.
struct TrafficEstimate {
  double Issue = 0;
  double Memory = 0;
  std::string Basis;
};
TrafficEstimate kernelTraffic(clang::ASTContext &Ctx,
                              const clang::FunctionDecl *FD,
                              const CostTable &C);

/// The innermost loop around \p S in \p FD's body, or the body itself.
const clang::Stmt *enclosingLoopBody(const clang::FunctionDecl *FD,
                                     const clang::Stmt *S);

} // namespace warpwise

#endif
