// What the offload unit tests share: a C or C++ snippet parsed with clang
// -fopenmp, its directives in source order, and the directive model run
// over one of them, so that each part of offload is tested on its own input.
#ifndef WARPWISE_OFFLOAD_TEST_SUPPORT_H
#define WARPWISE_OFFLOAD_TEST_SUPPORT_H

#include "offload/CallerExtents.h"
#include "offload/DataExtents.h"
#include "offload/DataRegions.h"
#include "offload/Dependence.h"
#include "offload/Directive.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace offload_test {

using namespace warpwise::offload;

/// A snippet parsed as C (t.c) or C++ (t.cpp) with -fopenmp.
struct Parsed {
  std::string Code;
  std::unique_ptr<clang::ASTUnit> AST;
  std::unique_ptr<OffloadSource> Src;

  clang::ASTContext &ctx() { return AST->getASTContext(); }

  /// The function named \p Name defined in the snippet.
  const clang::FunctionDecl *function(llvm::StringRef Name) {
    for (clang::Decl *D : ctx().getTranslationUnitDecl()->decls())
      if (auto *F = llvm::dyn_cast<clang::FunctionDecl>(D))
        if (F->getName() == Name && F->doesThisDeclarationHaveABody())
          return F;
    return nullptr;
  }

  /// Every OpenMP directive of the snippet, in source order (inner ones
  /// after the one around them).
  std::vector<const clang::OMPExecutableDirective *> directives() {
    struct Finder : clang::RecursiveASTVisitor<Finder> {
      std::vector<const clang::OMPExecutableDirective *> Found;
      bool VisitOMPExecutableDirective(clang::OMPExecutableDirective *D) {
        Found.push_back(D);
        return true;
      }
    } F;
    F.TraverseDecl(ctx().getTranslationUnitDecl());
    return F.Found;
  }
};

inline std::unique_ptr<Parsed> parse(const std::string &Code, bool C = true) {
  auto P = std::make_unique<Parsed>();
  P->Code = Code;
  std::vector<std::string> Args = {"-fopenmp", "-resource-dir",
                                   WARPWISE_CLANG_RESOURCE_DIR};
  Args.push_back(C ? "-std=c11" : "-std=c++17");
  P->AST =
      clang::tooling::buildASTFromCodeWithArgs(Code, Args, C ? "t.c" : "t.cpp");
  REQUIRE(P->AST);
  REQUIRE_FALSE(P->AST->getDiagnostics().hasErrorOccurred());
  P->Src = std::make_unique<OffloadSource>(P->ctx(), P->Code);
  return P;
}

/// The directive model over directive \p D of function \p F, as the
/// translation runs it up to the dependence test: the head, the loop and
/// its clauses, the nest, the nest's uses, the calls, the atomic updates
/// and the variables (arrays mapped by \p Extents). False: P.Refusal says
/// why.
inline bool readPlan(Parsed &In, const clang::OMPExecutableDirective *D,
                     KernelPlan &P, FunctionData &Fn) {
  P.Directive = D;
  P.Function = Fn.F;
  if (!readDirectiveHead(*In.Src, P))
    return false;
  const clang::OMPLoopDirective *Loop = nullptr;
  std::vector<const clang::OMPClause *> Clauses;
  if (selectLoop(P, Loop, Clauses) != LoopForm::Loop)
    return false;
  ClauseSet C;
  if (!readClauses(In.ctx(), Clauses, P, C) ||
      !readNest(*In.Src, P, Loop, C.Collapse))
    return false;
  UseCollector U = collectUses(P.Levels.front().For);
  DeviceCode Device(In.ctx());
  ExtentPlanner Extents(*In.Src, Fn);
  auto MapArray = [&](KernelPlan &Q, const clang::VarDecl *V,
                      const UseCollector &X) {
    return Extents.mapShared(Q, V, X, C);
  };
  return checkNestBody(*In.Src, P, U) && Device.checkCalls(P, U) &&
         readAtomics(P, U) && classifyVariables(P, U, C, MapArray);
}

/// readPlan of the first directive of function \p Name.
inline bool readFirstPlan(Parsed &In, llvm::StringRef Name, KernelPlan &P,
                          FunctionData &Fn) {
  const clang::FunctionDecl *F = In.function(Name);
  REQUIRE(F);
  Fn.reset(In.ctx(), F);
  for (const clang::OMPExecutableDirective *D : In.directives())
    if (In.ctx().getSourceManager().isBeforeInTranslationUnit(
            F->getBeginLoc(), D->getBeginLoc()) &&
        In.ctx().getSourceManager().isBeforeInTranslationUnit(D->getBeginLoc(),
                                                              F->getEndLoc()))
      return readPlan(In, D, P, Fn);
  FAIL("no directive in " << Name.str());
  return false;
}

/// The translation's planning of one function, up to its data regions:
/// each directive as the region planner meets it goes through the
/// directive model, the dependence test, the full-write proof and the loop
/// swap (as the translation runs them), and its kernel is named k_LLINE.
struct FunctionPlanner {
  Parsed &In;
  FunctionData Fn;
  std::map<const clang::OMPExecutableDirective *, KernelPlan> Plans;
  std::vector<Region> Regions;
  std::unique_ptr<CallerExtents> Callers;

  FunctionPlanner(Parsed &In, llvm::StringRef Name) : In(In) {
    const clang::FunctionDecl *F = In.function(Name);
    REQUIRE(F);
    Fn.reset(In.ctx(), F);
    RegionPlanner Walker(
        *In.Src, Fn,
        [&](const clang::OMPExecutableDirective *D) -> KernelPlan & {
          return plan(D);
        },
        [&]() -> CallerExtents & {
          if (!Callers)
            Callers = std::make_unique<CallerExtents>(*In.Src);
          return *Callers;
        },
        Regions);
    Walker.walk(F->getBody(), false);
  }

  KernelPlan &plan(const clang::OMPExecutableDirective *D) {
    auto [It, New] = Plans.try_emplace(D);
    KernelPlan &P = It->second;
    if (!New)
      return P;
    if (readPlan(In, D, P, Fn)) {
      std::string Race;
      if (!parallelIndependent(*In.Src, P, Race))
        P.Refusal = Race;
    }
    if (!P.Refusal.empty())
      return P;
    proveFullWrites(*In.Src, P);
    if (P.Levels.size() == 1)
      trySwap(*In.Src, P);
    P.Name = "k_L" + std::to_string(P.Line);
    return P;
  }

  /// The plan of the directive on line \p Line.
  KernelPlan &at(unsigned Line) {
    for (auto &[D, P] : Plans)
      if (P.Line == Line)
        return P;
    FAIL("no directive planned at line " << Line);
    return Plans.begin()->second;
  }
};

/// Region \p R's copy decision for array \p Name: "in", "out", "in+out"
/// or "device".
inline std::string copies(const Region &R, llvm::StringRef Name) {
  for (auto &[V, IO] : R.CopyInOut)
    if (V->getName() == Name)
      return IO.first && IO.second ? "in+out"
             : IO.first            ? "in"
             : IO.second           ? "out"
                                   : "device";
  return "(not in the region)";
}

/// Region \p R's reason for array \p Name's copies.
inline std::string why(const Region &R, llvm::StringRef Name) {
  for (auto &[V, W] : R.Why)
    if (V->getName() == Name)
      return W;
  return "";
}

/// The names of \p Vars, in order.
inline std::vector<std::string>
names(const std::vector<const clang::VarDecl *> &Vars) {
  std::vector<std::string> Out;
  for (const clang::VarDecl *V : Vars)
    Out.push_back(V->getNameAsString());
  return Out;
}

} // namespace offload_test

#endif
