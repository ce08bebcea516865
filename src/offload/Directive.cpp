//===- Directive.cpp - What an OpenMP loop directive says -----------------===//
#include "Directive.h"

#include "warpwise/AstQueries.h"

#include "../transform/SourceText.h"

#include "clang/AST/ExprOpenMP.h"
#include "clang/AST/OpenMPClause.h"
#include "clang/Basic/OpenMPKinds.h"
#include "clang/Basic/SourceManager.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Path.h"

using namespace clang;

namespace warpwise {
namespace offload {

namespace {

/// The condition of a canonical loop: i < ub, i <= ub, i > ub, i >= ub,
/// i != ub, or reversed. False when it compares something else.
bool readCondition(const ForStmt *For, LoopLevel &L, std::string &Why) {
  auto *C = dyn_cast_or_null<BinaryOperator>(
      For->getCond() ? For->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!C || !C->isComparisonOp() || C->getOpcode() == BO_EQ) {
    Why = "its condition is not a comparison of the variable";
    return false;
  }
  if (referencedVar(C->getLHS()) == L.Var) {
    L.Cmp = C->getOpcode();
    L.Ub = C->getRHS();
  } else if (referencedVar(C->getRHS()) == L.Var) {
    L.Ub = C->getLHS();
    switch (C->getOpcode()) {
    case BO_LT:
      L.Cmp = BO_GT;
      break;
    case BO_LE:
      L.Cmp = BO_GE;
      break;
    case BO_GT:
      L.Cmp = BO_LT;
      break;
    case BO_GE:
      L.Cmp = BO_LE;
      break;
    default:
      L.Cmp = C->getOpcode();
    }
  } else {
    Why = "its condition does not compare the variable";
    return false;
  }
  return true;
}

/// The increment of a canonical loop: i++, ++i, i--, --i, i += s, i -= s,
/// i = i + s, i = s + i, i = i - s. Sets L.UnitStep or L.Step; \p Minus:
/// the variable goes down.
void readIncrement(const ForStmt *For, LoopLevel &L, bool &Minus) {
  const Expr *Inc =
      For->getInc() ? For->getInc()->IgnoreParenImpCasts() : nullptr;
  if (auto *U = dyn_cast_or_null<UnaryOperator>(Inc);
      U && U->isIncrementDecrementOp() &&
      referencedVar(U->getSubExpr()) == L.Var) {
    Minus = U->isDecrementOp();
    L.UnitStep = true;
  } else if (auto *CA = dyn_cast_or_null<CompoundAssignOperator>(Inc);
             CA && referencedVar(CA->getLHS()) == L.Var &&
             (CA->getOpcode() == BO_AddAssign ||
              CA->getOpcode() == BO_SubAssign)) {
    Minus = CA->getOpcode() == BO_SubAssign;
    L.Step = CA->getRHS();
  } else if (auto *A = dyn_cast_or_null<BinaryOperator>(Inc);
             A && A->getOpcode() == BO_Assign &&
             referencedVar(A->getLHS()) == L.Var) {
    auto *R = dyn_cast<BinaryOperator>(A->getRHS()->IgnoreParenImpCasts());
    if (R && R->getOpcode() == BO_Add && referencedVar(R->getLHS()) == L.Var)
      L.Step = R->getRHS();
    else if (R && R->getOpcode() == BO_Add &&
             referencedVar(R->getRHS()) == L.Var)
      L.Step = R->getLHS();
    else if (R && R->getOpcode() == BO_Sub &&
             referencedVar(R->getLHS()) == L.Var) {
      L.Step = R->getRHS();
      Minus = true;
    }
  }
}

} // namespace

bool readCanonicalLoop(const OffloadSource &Src, const ForStmt *For,
                       LoopLevel &L, std::string &Refusal) {
  ASTContext &Ctx = Src.Ctx;
  L.For = For;
  auto Refuse = [&](std::string Why) {
    Refusal = "the loop at line " + Src.lineOf(For->getBeginLoc()) +
              " is not in the canonical form: " + Why;
    return false;
  };
  // init: `int i = lb` or `i = lb`.
  const Stmt *Init = For->getInit();
  if (auto *DS = dyn_cast_or_null<DeclStmt>(Init)) {
    if (!DS->isSingleDecl())
      return Refuse("it declares several variables");
    auto *V = dyn_cast<VarDecl>(DS->getSingleDecl());
    if (!V || !V->getInit())
      return Refuse("its variable has no initial value");
    L.Var = V;
    L.Lb = V->getInit();
  } else if (auto *B = dyn_cast_or_null<BinaryOperator>(Init);
             B && B->getOpcode() == BO_Assign) {
    L.Var = referencedVar(B->getLHS());
    L.Lb = B->getRHS();
  }
  if (!L.Var || !L.Lb)
    return Refuse("it does not start with 'i = first'");
  if (!L.Var->getType()->isIntegerType())
    return Refuse("its variable '" + L.Var->getNameAsString() +
                  "' is not an integer (pointers and iterators are not "
                  "supported)");
  std::string Why;
  if (!readCondition(For, L, Why))
    return Refuse(Why);
  bool Minus = false;
  readIncrement(For, L, Minus);
  if (!L.UnitStep && !L.Step)
    return Refuse("its increment is not 'i++', 'i--', 'i += step' or "
                  "'i = i + step'");
  if (L.Step) {
    Expr::EvalResult ER;
    if (L.Step->EvaluateAsInt(ER, Ctx)) {
      llvm::APSInt V = ER.Val.getInt();
      if (V.isNegative() || V.isZero())
        return Refuse("its step is not a positive constant or variable");
      L.UnitStep = V == 1;
    }
  }
  L.Decreasing = Minus;
  bool Up = L.Cmp == BO_LT || L.Cmp == BO_LE;
  bool Down = L.Cmp == BO_GT || L.Cmp == BO_GE;
  if (L.Cmp == BO_NE) {
    if (!L.UnitStep)
      return Refuse("'!=' is supported with a unit step only");
    Up = !Minus;
    Down = Minus;
    L.Cmp = Minus ? BO_GT : BO_LT;
  }
  if ((Up && Minus) || (Down && !Minus))
    return Refuse("its step goes away from its bound");
  // Its header is the program's text: the bounds are copied as written.
  if (For->getBeginLoc().isMacroID() || For->getRParenLoc().isMacroID())
    return Refuse("the loop's header comes from a macro");
  for (const Expr *E : {L.Lb, L.Ub, L.Step})
    if (E && sourceText(Ctx, E->getSourceRange()).empty())
      return Refuse("the loop's header comes from a macro");
  // The body leaves the variable, the bound and the step alone: the
  // iteration space is what the header says.
  UseCollector Body = collectUses(For->getBody());
  std::set<const VarDecl *> Header = {L.Var};
  for (const Expr *E : {L.Ub, L.Step}) {
    if (!E)
      continue;
    UseCollector H = collectUses(E);
    Header.insert(H.Order.begin(), H.Order.end());
  }
  for (const VarDecl *V : Header) {
    auto It = Body.Uses.find(V);
    if (It != Body.Uses.end() &&
        (It->second.ScalarWrite || It->second.AddressTaken))
      return Refuse("its body changes '" + V->getNameAsString() +
                    "', which its header uses");
  }
  return true;
}

bool readDirectiveHead(const OffloadSource &Src, KernelPlan &P) {
  const OMPExecutableDirective *D = P.Directive;
  const SourceManager &SM = Src.SM;
  llvm::StringRef Contents = Src.Contents;
  P.Line = Src.lineNumber(D->getBeginLoc());
  P.Column = SM.getExpansionColumnNumber(D->getBeginLoc());
  unsigned PB = Src.offset(D->getBeginLoc());
  unsigned PE = PB;
  while (PE < Contents.size() && Contents[PE] != '\n')
    ++PE;
  P.PragmaText = Contents.substr(PB, PE - PB).trim().str();
  if (!directiveBody(D)) {
    P.Refusal = "'" + P.PragmaText.substr(P.PragmaText.find("omp")) +
                "' is a stand-alone directive, not a loop";
    return false;
  }
  {
    // The statement is replaced by the launch and copied into the kernel:
    // a preprocessor conditional must open and close inside it.
    const Stmt *Loop = directiveBody(D);
    unsigned LB = Src.offset(Loop->getBeginLoc()), LE = Src.endOf(D);
    int Depth = 0;
    bool Crosses = false;
    llvm::SmallVector<llvm::StringRef> Lines;
    Contents.slice(LB, LE).split(Lines, '\n');
    for (llvm::StringRef L : Lines) {
      L = L.ltrim();
      if (!L.consume_front("#"))
        continue;
      L = L.ltrim();
      if (L.starts_with("if"))
        ++Depth;
      else if (L.starts_with("endif") && --Depth < 0)
        Crosses = true;
    }
    if (Crosses || Depth != 0) {
      P.Refusal = "a preprocessor conditional (#if/#endif) crosses the "
                  "loop's boundary";
      return false;
    }
  }
  if (D->getBeginLoc().isMacroID() || SM.isMacroBodyExpansion(D->getEndLoc())) {
    P.Refusal = "the directive comes from a macro";
    return false;
  }
  return true;
}

LoopForm selectLoop(KernelPlan &P, const OMPLoopDirective *&Loop,
                    std::vector<const OMPClause *> &Clauses) {
  const OMPExecutableDirective *D = P.Directive;
  auto Kind = D->getDirectiveKind();
  Loop = nullptr;
  Clauses.assign(D->clauses().begin(), D->clauses().end());
  if (P.Enclosing) {
    Loop = cast<OMPLoopDirective>(D);
    Clauses.assign(P.Enclosing->clauses().begin(),
                   P.Enclosing->clauses().end());
    Clauses.insert(Clauses.end(), D->clauses().begin(), D->clauses().end());
    return LoopForm::Loop;
  }
  switch (Kind) {
  case llvm::omp::OMPD_for:
  case llvm::omp::OMPD_for_simd:
    // An orphaned worksharing loop: the parallel region it shares out is
    // a caller's, whose every thread calls this function, so one kernel
    // per call would run the loop once per host thread.
    P.Refusal = "'" + P.PragmaText.substr(P.PragmaText.find("omp")) +
                "' is outside a `parallel` region of this function (an "
                "orphaned worksharing loop, bound to its caller's region); "
                "offload the caller's `parallel` region, or write `parallel "
                "for` here";
    return LoopForm::Refused;
  case llvm::omp::OMPD_parallel_for:
  case llvm::omp::OMPD_parallel_for_simd:
  case llvm::omp::OMPD_target_teams_distribute_parallel_for:
  case llvm::omp::OMPD_target_teams_distribute_parallel_for_simd:
  case llvm::omp::OMPD_target_parallel_for:
  case llvm::omp::OMPD_target_parallel_for_simd:
  case llvm::omp::OMPD_teams_distribute_parallel_for:
  case llvm::omp::OMPD_teams_distribute_parallel_for_simd:
    Loop = cast<OMPLoopDirective>(D);
    return LoopForm::Loop;
  case llvm::omp::OMPD_parallel: {
    const Stmt *Body = soleStatement(directiveBody(D));
    auto *For = dyn_cast_or_null<OMPLoopDirective>(Body);
    if (For && !isa<OMPForDirective>(For) && !isa<OMPForSimdDirective>(For))
      For = nullptr;
    if (!For)
      return LoopForm::Group;
    Loop = For;
    Clauses.insert(Clauses.end(), For->clauses().begin(), For->clauses().end());
    return LoopForm::Loop;
  }
  default:
    P.Refusal = "'" + P.PragmaText.substr(P.PragmaText.find("omp")) +
                "' is not an offloadable loop (parallel for, parallel + for, "
                "target teams distribute parallel for)";
    return LoopForm::Refused;
  }
}

namespace {

/// A reduction clause: its operator and, per variable, the identity of
/// its type.
bool readReduction(const OMPReductionClause *R, KernelPlan &P) {
  DeclarationName N = R->getNameInfo().getName();
  std::string Op;
  if (N.getNameKind() == DeclarationName::CXXOperatorName) {
    switch (N.getCXXOverloadedOperator()) {
    case OO_Plus:
    case OO_Minus:
      Op = "ww_omp_plus";
      break;
    case OO_Star:
      Op = "ww_omp_times";
      break;
    default:
      break;
    }
  } else if (N.isIdentifier()) {
    if (N.getAsString() == "min")
      Op = "ww_omp_min";
    else if (N.getAsString() == "max")
      Op = "ww_omp_max";
  }
  if (Op.empty()) {
    P.Refusal = "'reduction(" + R->getNameInfo().getAsString() +
                ":...)' is not supported (+, -, *, min and max are)";
    return false;
  }
  if (R->getModifier() != OMPC_REDUCTION_unknown &&
      R->getModifier() != OMPC_REDUCTION_default) {
    P.Refusal = "reduction modifiers (inscan, task) are not supported";
    return false;
  }
  for (const Expr *E : R->varlist()) {
    const VarDecl *V = referencedVar(E);
    if (!V) {
      P.Refusal = "a reduction over an array section is not supported";
      return false;
    }
    // The identities of min and max: the type's extremes.
    static const struct {
      BuiltinType::Kind Kind;
      const char *Lo, *Hi;
    } Limits[] = {
        {BuiltinType::Float, "-FLT_MAX", "FLT_MAX"},
        {BuiltinType::Double, "-DBL_MAX", "DBL_MAX"},
        {BuiltinType::Int, "INT_MIN", "INT_MAX"},
        {BuiltinType::UInt, "0u", "UINT_MAX"},
        {BuiltinType::Long, "LONG_MIN", "LONG_MAX"},
        {BuiltinType::ULong, "0ul", "ULONG_MAX"},
        {BuiltinType::LongLong, "LLONG_MIN", "LLONG_MAX"},
        {BuiltinType::ULongLong, "0ull", "ULLONG_MAX"},
    };
    const auto *BT = V->getType()->getAs<BuiltinType>();
    std::string Ty = V->getType().getUnqualifiedType().getAsString();
    std::string Lo, Hi;
    for (const auto &L : Limits)
      if (BT && BT->getKind() == L.Kind) {
        Lo = L.Lo;
        Hi = L.Hi;
      }
    if (Lo.empty()) {
      P.Refusal = "the reduction variable '" + V->getNameAsString() +
                  "' has type '" + Ty +
                  "' (int, long, long long, their unsigned forms, float and "
                  "double are supported)";
      return false;
    }
    ReductionVar RV;
    RV.Var = V;
    RV.Op = Op;
    // The sum's and product's identities in the type the build gives
    // (`DATA_TYPE`); min and max keep this build's limits.
    if (std::string M = spelledVarType(V->getASTContext(), V);
        !M.empty() && (Op == "ww_omp_plus" || Op == "ww_omp_times"))
      Ty = M;
    RV.Identity = Op == "ww_omp_plus"    ? "(" + Ty + ")0"
                  : Op == "ww_omp_times" ? "(" + Ty + ")1"
                  : Op == "ww_omp_min"   ? "(" + Ty + ")" + Hi
                                         : "(" + Ty + ")" + Lo;
    P.Reductions.push_back(RV);
  }
  return true;
}

/// A map clause: the direction of each item and the section it names.
bool readMap(ASTContext &Ctx, const OMPMapClause *M, KernelPlan &P,
             ClauseSet &C) {
  MapKind K = MapKind::ToFrom;
  switch (M->getMapType()) {
  case OMPC_MAP_to:
    K = MapKind::To;
    break;
  case OMPC_MAP_from:
    K = MapKind::From;
    break;
  case OMPC_MAP_alloc:
    K = MapKind::Alloc;
    break;
  case OMPC_MAP_tofrom:
  case OMPC_MAP_unknown:
    K = MapKind::ToFrom;
    break;
  default:
    P.Refusal = "'" + sourceText(Ctx, {M->getBeginLoc(), M->getEndLoc()}) +
                "' is not a to, from, tofrom or alloc map";
    return false;
  }
  for (const Expr *E : M->varlist()) {
    const Expr *S = strip(E);
    const VarDecl *V = referencedVar(S);
    if (auto *AS = dyn_cast<ArraySectionExpr>(S)) {
      if (isa<ArraySectionExpr>(strip(AS->getBase()))) {
        P.Refusal = "the multi-dimensional section '" +
                    sourceText(Ctx, AS->getSourceRange()) +
                    "' is not supported; map the whole array";
        return false;
      }
      V = referencedVar(AS->getBase());
      if (V)
        C.MapSection[V] = AS;
    }
    if (!V) {
      P.Refusal = "the map item '" + sourceText(Ctx, S->getSourceRange()) +
                  "' is not a variable or a section of one";
      return false;
    }
    C.MapKinds[V] = K;
  }
  return true;
}

} // namespace

bool readClauses(ASTContext &Ctx, const std::vector<const OMPClause *> &Clauses,
                 KernelPlan &P, ClauseSet &C) {
  for (const OMPClause *Cl : Clauses) {
    // Clauses Sema added (a target region's implicit firstprivate and map)
    // restate the defaults the translation applies anyway.
    if (Cl->isImplicit())
      continue;
    std::string Name =
        llvm::omp::getOpenMPClauseName(Cl->getClauseKind()).str();
    switch (Cl->getClauseKind()) {
    case llvm::omp::OMPC_private:
      for (const Expr *E : cast<OMPPrivateClause>(Cl)->varlist())
        if (const VarDecl *V = referencedVar(E))
          C.Private.insert(V);
      break;
    case llvm::omp::OMPC_firstprivate:
      for (const Expr *E : cast<OMPFirstprivateClause>(Cl)->varlist())
        if (const VarDecl *V = referencedVar(E))
          C.Firstprivate.insert(V);
      break;
    case llvm::omp::OMPC_shared:
    case llvm::omp::OMPC_default:
      break;
    case llvm::omp::OMPC_collapse: {
      Expr::EvalResult ER;
      if (cast<OMPCollapseClause>(Cl)->getNumForLoops()->EvaluateAsInt(ER, Ctx))
        C.Collapse = ER.Val.getInt().getZExtValue();
      break;
    }
    case llvm::omp::OMPC_schedule:
      P.Notes.push_back("'" +
                        sourceText(Ctx, {Cl->getBeginLoc(), Cl->getEndLoc()}) +
                        "' has no GPU counterpart: each iteration is one "
                        "thread, and the hardware schedules the blocks");
      break;
    case llvm::omp::OMPC_num_threads:
    case llvm::omp::OMPC_num_teams:
    case llvm::omp::OMPC_thread_limit:
    case llvm::omp::OMPC_dist_schedule:
    case llvm::omp::OMPC_proc_bind:
      P.Notes.push_back("'" + Name +
                        "' is ignored: the grid has one thread per "
                        "iteration");
      break;
    case llvm::omp::OMPC_nowait:
      // One loop alone in its region: nothing waits on it anyway.
      break;
    case llvm::omp::OMPC_simdlen:
    case llvm::omp::OMPC_safelen:
    case llvm::omp::OMPC_aligned:
    case llvm::omp::OMPC_order:
      P.Notes.push_back("'" + Name +
                        "' is ignored: each iteration is a thread of its own");
      break;
    case llvm::omp::OMPC_reduction:
      if (!readReduction(cast<OMPReductionClause>(Cl), P))
        return false;
      break;
    case llvm::omp::OMPC_map:
      if (!readMap(Ctx, cast<OMPMapClause>(Cl), P, C))
        return false;
      break;
    default:
      P.Refusal = "the clause '" + Name + "' is not supported";
      return false;
    }
  }
  if (C.Collapse > 3) {
    P.Refusal = "collapse(" + std::to_string(C.Collapse) +
                ") is deeper than a grid's three dimensions";
    return false;
  }
  return true;
}

bool readNest(const OffloadSource &Src, KernelPlan &P,
              const OMPLoopDirective *Loop, unsigned Collapse) {
  // The loop nest: `Collapse` perfectly nested canonical loops.
  const Stmt *S = Loop->getInnermostCapturedStmt()->getCapturedStmt();
  for (unsigned K = 0; K < Collapse; ++K) {
    auto *For = dyn_cast_or_null<ForStmt>(soleStatement(S));
    if (!For) {
      P.Refusal = K == 0 ? "the directive is not followed by a for loop"
                         : "collapse(" + std::to_string(Collapse) +
                               ") needs perfectly nested loops";
      return false;
    }
    LoopLevel L;
    if (!readCanonicalLoop(Src, For, L, P.Refusal))
      return false;
    P.Levels.push_back(L);
    S = For->getBody();
  }
  P.Body = P.Levels.back().For->getBody();
  // Rectangular: a bound of an inner level does not use an outer variable.
  for (size_t K = 1; K < P.Levels.size(); ++K) {
    UseCollector U;
    for (const Expr *E : {P.Levels[K].Lb, P.Levels[K].Ub, P.Levels[K].Step})
      if (E)
        U.TraverseStmt(const_cast<Expr *>(E));
    for (size_t O = 0; O < K; ++O)
      if (U.Uses.count(P.Levels[O].Var)) {
        P.Refusal = "the collapsed nest is not rectangular: the bounds of '" +
                    P.Levels[K].Var->getNameAsString() + "' use '" +
                    P.Levels[O].Var->getNameAsString() + "'";
        return false;
      }
  }
  return true;
}

bool checkNestBody(const OffloadSource &Src, KernelPlan &P,
                   const UseCollector &U) {
  if (!U.Problems.empty()) {
    P.Refusal = "the loop " + U.Problems.front().second + " (line " +
                Src.lineOf(U.Problems.front().first) + ")";
    return false;
  }
  if (hasOwnJump(P.Body, /*Breaks=*/true, /*Continues=*/false)) {
    P.Refusal = "the loop breaks out of its iterations";
    return false;
  }
  // The kernel declares ww_t0, ww_u, ww_g0 ... around the body, and the
  // body would read those instead of the program's variables of the name.
  std::vector<const VarDecl *> Named;
  for (const auto &[V, Use] : U.Uses)
    Named.push_back(V);
  Named.insert(Named.end(), U.Declared.begin(), U.Declared.end());
  for (const VarDecl *V : Named)
    if (V->getName().starts_with("ww_")) {
      P.Refusal = "the loop uses '" + V->getNameAsString() +
                  "', and names beginning with 'ww_' are warpwise's in the "
                  "kernel it writes (rename the variable)";
      return false;
    }
  // The nest is perfect: only the innermost body can change a loop
  // variable or a bound.
  UseCollector B = collectUses(P.Body);
  for (const LoopLevel &M : P.Levels) {
    auto It = B.Uses.find(M.Var);
    if (It != B.Uses.end() &&
        (It->second.ScalarWrite || It->second.AddressTaken)) {
      P.Refusal = "the body changes the loop variable '" +
                  M.Var->getNameAsString() + "'";
      return false;
    }
  }
  // The step and bound are evaluated once, as OpenMP requires.
  for (const LoopLevel &L : P.Levels)
    for (const Expr *E : {L.Lb, L.Ub, L.Step}) {
      if (!E)
        continue;
      UseCollector BU = collectUses(E);
      for (const VarDecl *V : BU.Order) {
        auto It = B.Uses.find(V);
        if (It != B.Uses.end() &&
            (It->second.ScalarWrite || It->second.AddressTaken)) {
          P.Refusal = "the body changes '" + V->getNameAsString() +
                      "', which a loop bound uses";
          return false;
        }
      }
    }
  return true;
}

bool DeviceCode::callable(const FunctionDecl *F, std::string &Why,
                          std::set<const FunctionDecl *> &Seen) {
  if (isDeviceMath(F->getName()) &&
      (!F->hasBody() ||
       SM.isInSystemHeader(SM.getExpansionLoc(F->getLocation()))))
    return true; // C's sqrt, or C++'s std::sqrt overloads: CUDA has both.
  if (F->getBuiltinID() && isDeviceMath(F->getName()))
    return true;
  const FunctionDecl *Def = nullptr;
  if (!F->hasBody(Def)) {
    Why = "calls '" + F->getNameAsString() +
          "', which is not defined in this file and cannot be compiled for "
          "the device";
    return false;
  }
  // Only the main file is written: a definition in a file it includes
  // (Rodinia heartwall's kernel.c) cannot be marked for the device.
  if (!SM.isInMainFile(SM.getExpansionLoc(Def->getLocation()))) {
    Why = "calls '" + F->getNameAsString() + "', which is defined in " +
          llvm::sys::path::filename(
              SM.getFilename(SM.getExpansionLoc(Def->getLocation())))
              .str() +
          ", not in this file; only this file is rewritten, so it cannot "
          "be compiled for the device";
    return false;
  }
  if (!Seen.insert(Def).second)
    return true;
  if (Def->isVariadic() || isa<CXXMethodDecl>(Def) ||
      Def->getTemplatedKind() != FunctionDecl::TK_NonTemplate) {
    Why = "calls '" + F->getNameAsString() +
          "', a variadic, member or template function (not supported)";
    return false;
  }
  UseCollector U = collectUses(Def->getBody(), /*InFunction=*/true);
  if (!U.Problems.empty()) {
    Why = "calls '" + F->getNameAsString() + "', which " +
          U.Problems.front().second;
    return false;
  }
  for (const VarDecl *V : U.Order) {
    if (!V->hasGlobalStorage() || V->isStaticLocal())
      continue;
    bool ConstScalar = V->getType().isConstQualified() &&
                       V->getType()->isIntegralOrEnumerationType() &&
                       V->getInit() &&
                       V->getInit()->isConstantInitializer(Ctx, false);
    if (!ConstScalar) {
      Why = "calls '" + F->getNameAsString() + "', which reads the global '" +
            V->getNameAsString() + "' (host memory)";
      return false;
    }
  }
  for (const FunctionDecl *C : U.Calls)
    if (!callable(C, Why, Seen))
      return false;
  return true;
}

bool DeviceCode::checkCalls(KernelPlan &P, const UseCollector &U) {
  std::string Why;
  std::set<const FunctionDecl *> Seen;
  for (const FunctionDecl *F : U.Calls) {
    if (!callable(F, Why, Seen)) {
      P.Refusal = "the loop " + Why;
      return false;
    }
  }
  // Every function the nest reaches, the callees' callees included.
  P.DeviceFunctions.insert(Seen.begin(), Seen.end());
  return true;
}

bool readAtomics(KernelPlan &P, const UseCollector &U) {
  std::set<const VarDecl *> LevelVars;
  for (const LoopLevel &L : P.Levels)
    LevelVars.insert(L.Var);
  // Atomic updates: of a shared scalar, a reduction in all but name (each
  // thread adds into its own copy); of array elements, CUDA's atomicAdd.
  std::map<const VarDecl *, unsigned> AtomicRefs;
  for (const UseCollector::AtomicUpdate &A : U.Atomics) {
    if (!A.Element)
      ++AtomicRefs[A.Var];
    P.Atomics.push_back(A);
  }
  const Stmt *Outer = P.Levels.front().For;
  for (auto [V, N] : AtomicRefs) {
    if (U.Declared.count(V) || LevelVars.count(V))
      continue;
    // Every mention of V in the nest is one of its atomic updates.
    unsigned All = 0;
    std::function<void(const Stmt *)> Count = [&](const Stmt *X) {
      if (!X)
        return;
      if (auto *DR = dyn_cast<DeclRefExpr>(X); DR && DR->getDecl() == V)
        ++All;
      for (const Stmt *C : childrenOf(X))
        Count(C);
    };
    Count(Outer);
    if (All != N || llvm::any_of(P.Reductions, [&](const ReductionVar &R) {
          return R.Var == V;
        })) {
      P.Refusal = "'" + V->getNameAsString() +
                  "' is updated atomically and also used otherwise in the loop";
      return false;
    }
    ReductionVar RV;
    RV.Var = V;
    RV.Op = "ww_omp_plus";
    RV.Identity = "(" + V->getType().getUnqualifiedType().getAsString() + ")0";
    P.Reductions.push_back(RV);
    P.Notes.push_back("the atomic updates of '" + V->getNameAsString() +
                      "' are a sum: each thread adds into its own copy, and "
                      "the copies are combined as a reduction");
  }
  return true;
}

namespace {

/// A private variable: the thread's own, declared in the kernel.
bool classifyPrivate(KernelPlan &P, const VarDecl *V) {
  std::string N = V->getNameAsString();
  if (localType(V->getType())) {
    P.Refusal = "the type of the private '" + N +
                "' is declared inside the function; the kernel, at file "
                "scope, cannot name it";
    return false;
  }
  if (V->getType()->isVariablyModifiedType()) {
    P.Refusal = "the private '" + N + "' has a variable-length type";
    return false;
  }
  P.Private.push_back(V);
  return true;
}

} // namespace

bool classifyVariables(KernelPlan &P, const UseCollector &U, const ClauseSet &C,
                       const ArrayMapper &MapArray) {
  std::set<const VarDecl *> LevelVars;
  for (const LoopLevel &L : P.Levels)
    LevelVars.insert(L.Var);
  for (const VarDecl *V : U.Order) {
    if (U.Declared.count(V) || LevelVars.count(V))
      continue;
    const UseCollector::Use &Use = U.Uses.at(V);
    std::string N = V->getNameAsString();
    auto Refuse = [&](std::string Why) {
      P.Refusal = std::move(Why);
      return false;
    };
    if (V->getTLSKind() != VarDecl::TLS_None)
      return Refuse("'" + N + "' is thread-local");
    if (llvm::any_of(P.Reductions,
                     [&](const ReductionVar &R) { return R.Var == V; })) {
      if (Use.AddressTaken)
        return Refuse("the address of the reduction variable '" + N +
                      "' is taken");
      continue;
    }
    if (C.Private.count(V)) {
      if (!classifyPrivate(P, V))
        return false;
      continue;
    }
    QualType T = V->getType();
    if (localType(T))
      return Refuse("the type of '" + N +
                    "' is declared inside the function; the "
                    "kernel, at file scope, cannot name it");
    bool Scalar = T->isArithmeticType() || T->isEnumeralType();
    if (T->isRecordType() && plainData(T)) {
      // A structure of plain values is passed by value, as a scalar is.
      if (Use.ScalarWrite || Use.ElementWrite || Use.AddressTaken)
        return Refuse(
            C.Firstprivate.count(V)
                ? "the firstprivate structure '" + N +
                      "' is changed in the loop (structures are passed "
                      "by value only when the loop just reads them)"
                : "the loop writes into the shared structure '" + N +
                      "' (structures are passed by value, so only ones "
                      "the loop just reads are offloaded)");
      P.ByValue.push_back(V);
      continue;
    }
    if (C.Firstprivate.count(V)) {
      if (!Scalar)
        return Refuse("firstprivate '" + N +
                      "' is not a scalar (only scalars are "
                      "passed by value)");
      P.ByValue.push_back(V);
      continue;
    }
    if (Scalar) {
      if (Use.ScalarWrite || Use.AddressTaken)
        return Refuse("the shared scalar '" + N +
                      "' is written by every iteration (a data race; make it "
                      "private or a reduction)");
      P.ByValue.push_back(V);
      continue;
    }
    if (T->isPointerType() || T->isArrayType()) {
      if (Use.ScalarWrite || Use.AddressTaken)
        return Refuse("the loop changes the pointer '" + N + "' itself");
      if (!MapArray(P, V, U))
        return false;
      continue;
    }
    return Refuse("'" + N + "' has type '" + T.getAsString() +
                  "' (scalars, arrays and pointers to data can be mapped)");
  }
  return true;
}

} // namespace offload
} // namespace warpwise
