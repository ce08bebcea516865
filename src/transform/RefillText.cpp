//===- RefillText.cpp - The refill kernel and launches, as text -----------===//
//
// The refill kernel is the original's code rearranged, never rewritten: the
// statements before the item as they are, the item's declaration, the
// prologue's declarations hoisted (each then assigned per item), and the loop
// taken a chunk of iterations per round of a warp-wide loop, so that a lane
// whose item is done can start the next one while the others iterate:
//
//   active = guard; more = active; if (active) prologue;
//   for (;;) {
//     if (active) { up to a chunk of iterations; at the loop's end:
//                   epilogue; active = 0; }
//     if every lane is active: next round (the common case, one vote);
//     fewer than min_idle_lanes lanes idle and some busy: next round;
//     lanes without an item take the next ones (one atomicAdd per warp);
//       a lane with a new item: more = guard; active = more; prologue;
//     if no lane is active: done;
//   }
//
// An active lane runs up to ww_chunk iterations between two rounds of
// bookkeeping, in a loop that holds the original's body as written (its
// break and continue keep their meaning) and tests the original's condition
// at the top of each iteration, as the original does: nvcc then contracts
// its floating point as in the original (a chunk loop that tested it at the
// bottom gave the escape-time fractal other FMAs, and other results). The
// chunk is the planner's (refillChunk: long for cheap bodies, short for
// costly ones); -DWARPWISE_REFILL_CHUNK=N sets every kernel's.
//
//===----------------------------------------------------------------------===//
#include "RefillShape.h"

#include "../plan/RefillPlanner.h"

#include "Comments.h"
#include "SourceText.h"
#include "SplitText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

namespace warpwise {

using namespace clang;

namespace {

/// Writes the refill kernel's text; Problem says what could not be written.
class KernelWriter {
public:
  KernelWriter(const TransformContext &TC, const RefillShape &S)
      : TC(TC), S(S), SM(TC.Ctx.getSourceManager()),
        LO(TC.Ctx.getLangOpts()), PP(LO) {
    PP.SuppressTagKeyword = true;
  }

  std::string kernel(const std::string &NewName);
  std::string Problem;

private:
  std::string text(const Stmt *St);
  std::string exprText(const Expr *E);
  void hoist(const Stmt *St);
  std::string attributesOf(const VarDecl *V);
  std::string typeOf(const VarDecl *V) const {
    return V->getType().getUnqualifiedType().getAsString(PP);
  }
  std::string step();
  std::string guard();

  const TransformContext &TC;
  const RefillShape &S;
  const SourceManager &SM;
  const LangOptions &LO;
  PrintingPolicy PP;
  std::string Hoisted, Assigns;
};

/// A statement's text with its `;`, as written.
std::string KernelWriter::text(const Stmt *St) {
  unsigned B = 0, E = 0;
  if (!statementExtent(SM, LO, St, B, E)) {
    if (Problem.empty())
      Problem = "the statement at line " +
                std::to_string(SM.getExpansionLineNumber(St->getBeginLoc())) +
                " is not one stretch of the file (a macro writes part of it)";
    return "";
  }
  FileID F = SM.getFileID(SM.getExpansionLoc(St->getBeginLoc()));
  return SM.getBufferData(F).slice(B, E).str();
}

std::string KernelWriter::exprText(const Expr *E) {
  std::string T = writtenText(SM, LO, E->getSourceRange());
  if (T.empty() && Problem.empty())
    Problem = "the expression at line " +
              std::to_string(SM.getExpansionLineNumber(E->getBeginLoc())) +
              " is partly written by a macro";
  return T;
}

/// The attributes written on \p V, spelled as written, for its hoisted
/// declaration: `[[maybe_unused]]` on a variable that is set and not read
/// keeps nvcc's "set but never used" away from the copy too. Another
/// attribute sets Problem (the copy would not carry it).
std::string KernelWriter::attributesOf(const VarDecl *V) {
  std::string Out;
  for (const Attr *A : V->attrs()) {
    if (A->isImplicit())
      continue;
    if (!isa<UnusedAttr>(A)) {
      if (Problem.empty())
        Problem = "the declaration of `" + V->getNameAsString() +
                  "` carries an attribute (" + A->getSpelling() +
                  ") that its hoisted copy would not";
      continue;
    }
    std::string Name = A->getSpelling();
    if (const IdentifierInfo *Scope = A->getScopeName())
      Name = Scope->getName().str() + "::" + Name;
    Out += A->isCXX11Attribute() || A->isC23Attribute()
               ? "[[" + Name + "]] "
               : "__attribute__((" + Name + ")) ";
  }
  return Out;
}

/// A prologue statement: declarations become a hoisted `T v{};` and, per
/// item, `v = init;`; other statements run per item as written.
void KernelWriter::hoist(const Stmt *St) {
  auto *DS = dyn_cast<DeclStmt>(St);
  if (!DS) {
    Assigns += text(St) + "\n";
    return;
  }
  for (const Decl *D : DS->decls()) {
    auto *V = dyn_cast<VarDecl>(D);
    if (!V)
      continue;
    Hoisted +=
        attributesOf(V) + typeOf(V) + " " + V->getNameAsString() + "{};\n";
    if (V->getInit())
      Assigns +=
          V->getNameAsString() + " = " + exprText(V->getInit()) + ";\n";
  }
}

/// The item's range check: the guard's condition (negated for the early
/// return), or true.
std::string KernelWriter::guard() {
  if (!S.Guard)
    return "true";
  std::string C = exprText(S.Guard->getCond());
  return S.GuardReturns ? "!(" + C + ")" : "(" + C + ")";
}

/// Up to ww_chunk iterations of the loop for an active lane, so that the
/// warp's bookkeeping is paid once per chunk. Any exit other than the chunk's
/// end (the condition failing, a break) ends the item: its epilogue runs and
/// the lane is done. A continue goes to the chunk loop's step, which holds
/// the for loop's step (or the do loop's condition).
std::string KernelWriter::step() {
  const Stmt *BodyStmt = nullptr;
  const Expr *Cond = nullptr, *Inc = nullptr;
  bool Do = false;
  if (auto *W = dyn_cast<WhileStmt>(S.Loop)) {
    BodyStmt = W->getBody();
    Cond = W->getCond();
  } else if (auto *F = dyn_cast<ForStmt>(S.Loop)) {
    BodyStmt = F->getBody();
    Cond = F->getCond();
    Inc = F->getInc();
  } else {
    auto *DoS = cast<DoStmt>(S.Loop);
    BodyStmt = DoS->getBody();
    Cond = DoS->getCond();
    Do = true;
  }
  std::string Body = text(BodyStmt);
  std::string Out = "unsigned int ww_k = 0u;\n";
  if (Do) {
    // The condition after each trip: false leaves past the chunk's end.
    Out += "for (; ww_k < ww_chunk;\nww_k = (" + exprText(Cond) +
           ") ? ww_k + 1u : ww_chunk + 1u)\n" + Body + "\n";
  } else {
    Out += "for (; ww_k < ww_chunk; ++ww_k" +
           (Inc ? ", " + exprText(Inc) : std::string()) + ") {\n";
    if (Cond)
      Out += "if (!(" + exprText(Cond) + "))\nbreak;\n";
    Out += Body + "\n}\n";
  }
  std::string Epilogue;
  for (const Stmt *St : S.Epilogue)
    Epilogue += text(St) + "\n";
  Out += "if (ww_k != ww_chunk) {\n";
  if (!Epilogue.empty())
    Out += "{\n" + Epilogue + "}\n";
  Out += "ww_active = false;\n}\n";
  return Out;
}

std::string KernelWriter::kernel(const std::string &NewName) {
  const FunctionDecl *FD = S.FD;
  CharSourceRange KR = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(FD->getSourceRange()), SM, LO);
  if (KR.isInvalid()) {
    Problem = "the kernel's definition is partly written by a macro";
    return "";
  }
  FileID F = SM.getFileID(KR.getBegin());
  llvm::StringRef File = SM.getBufferData(F);
  unsigned Begin = SM.getFileOffset(KR.getBegin());
  unsigned NameAt = SM.getFileOffset(SM.getExpansionLoc(FD->getLocation()));
  unsigned RParen = SM.getFileOffset(
      SM.getExpansionLoc(FD->getFunctionTypeLoc().getRParenLoc()));
  if (!(Begin <= NameAt && NameAt < RParen && RParen < File.size())) {
    Problem = "the kernel's header could not be read";
    return "";
  }
  std::string Name = FD->getNameAsString();
  std::string Header = File.slice(Begin, NameAt).str() + NewName +
                       File.slice(NameAt + Name.size(), RParen).str() +
                       ", unsigned int *ww_next, unsigned int ww_items)";

  std::string Pre;
  for (const Stmt *St : S.Pre)
    Pre += text(St) + "\n";
  for (const Stmt *St : S.Prologue)
    hoist(St);
  if (auto *For = dyn_cast<ForStmt>(S.Loop))
    if (For->getInit())
      hoist(For->getInit());
  std::string ItemType = typeOf(S.Item), ItemName = S.Item->getNameAsString();
  std::string Item = ItemType + " " + ItemName + " = " +
                     exprText(S.Item->getInit()) + ";\n";
  std::string Guard = guard();
  std::string Step = step();
  if (!Problem.empty())
    return "";
  std::string Body =
      "{\n" + Pre + Item + Hoisted +
      "// Iterations between two rounds of the warp's bookkeeping.\n"
      "const unsigned int ww_chunk = WARPWISE_REFILL_CHUNK_OR(" +
      std::to_string(refillChunk(S.Loop)) +
      "u);\n"
      "// The thread's own item first, then those the counter hands out.\n"
      "bool ww_active = " +
      Guard +
      ", ww_more = ww_active;\n"
      "if (ww_active) {\n" +
      Assigns +
      "}\n"
      "for (;;) {\n"
      "if (ww_active) {\n" +
      Step +
      "}\n"
      "if (__all_sync(0xffffffffu, ww_active))\n"
      "continue;\n"
      "// Lanes done with their item take the next ones: one atomicAdd per "
      "warp.\n"
      "const unsigned int ww_want =\n"
      "__ballot_sync(0xffffffffu, ww_more && !ww_active);\n"
      "// Few idle lanes while others are busy wait for more: one "
      "atomicAdd\n// and one round of prologues serve them together.\n"
      "if (__popc(ww_want) < " +
      std::to_string(refillMinIdleLanes()) +
      " && __any_sync(0xffffffffu, ww_active))\n"
      "continue;\n"
      "if (ww_want != 0u) {\n"
      "const unsigned int ww_lane = threadIdx.x % 32u;\n"
      "const int ww_leader = __ffs((int)ww_want) - 1;\n"
      "unsigned int ww_base = 0u;\n"
      "if ((int)ww_lane == ww_leader)\n"
      "ww_base = atomicAdd(ww_next, (unsigned int)__popc(ww_want));\n"
      "ww_base = __shfl_sync(0xffffffffu, ww_base, ww_leader);\n"
      "if ((ww_want >> ww_lane) & 1u) {\n"
      "const unsigned long long ww_item =\n"
      "(unsigned long long)gridDim.x * blockDim.x + ww_base +\n"
      "(unsigned int)__popc(ww_want & ((1u << ww_lane) - 1u));\n"
      "ww_more = ww_item < ww_items;\n"
      "if (ww_more) {\n" +
      ItemName + " = (" + ItemType +
      ")ww_item;\n"
      "ww_more = " +
      Guard +
      ";\n"
      "ww_active = ww_more;\n"
      "if (ww_active) {\n" +
      Assigns +
      "}\n"
      "}\n"
      "}\n"
      "}\n"
      "if (!__any_sync(0xffffffffu, ww_active))\n"
      "break;\n"
      "}\n"
      "}";
  return Header + " " + Body;
}

} // namespace

RefillText refillKernelText(const TransformContext &TC, const RefillShape &S,
                            const std::string &NewName) {
  KernelWriter W(TC, S);
  RefillText T;
  T.Kernel = W.kernel(NewName);
  T.Problem = W.Problem;
  return T;
}

std::string refillLaunch(llvm::StringRef MainText, const LaunchSite &L,
                         const std::string &Tag, bool Measured) {
  std::string Ind = indentBefore(MainText, L.Begin);
  std::string G = "ww_grid_" + L.Tag, Bl = "ww_block_" + L.Tag,
              Site = "ww_site_" + L.Tag, Plan = "ww_plan_" + L.Tag,
              MSite = "ww_msite_" + L.Tag, MPlan = "ww_mplan_" + L.Tag,
              St = L.stream(), Sh = L.shared();
  std::string Refill = L.Callee + "_ww_refill" + L.TemplateArgs;
  std::string NL = "\n" + Ind + "  ";
  std::string Begin = "ww_refill_begin(" + NL + "    " + Site +
                      ", (const void *)" + Refill + ", " + G + ", " + Bl +
                      ", " + Sh + ", " + St + ")";
  // Measured: the dispatch's plan first (its start event precedes the
  // counter's zeroing, which is part of the refill's cost); version 0 runs
  // the original without touching the refill's site.
  std::string Choice =
      Measured
          ? "static ww_measured_site " + MSite + ";" + NL +
                "ww_measured_plan " + MPlan + " = ww_measured_begin(" + NL +
                "    " + MSite + ", " + G + ", " + Bl + ", " + Sh + ", " + St +
                measuredKeyArgument(L, NL) + ");" + NL +
                "static ww_refill_site " + Site + ";" + NL + "ww_refill_plan " +
                Plan + " = " + MPlan + ".version != 0u" + NL + "    ? " +
                Begin + NL + "    : ww_refill_plan();" + NL
          : "static ww_refill_site " + Site + ";" + NL + "ww_refill_plan " +
                Plan + " = " + Begin + ";" + NL;
  return "{ // warpwise " + Tag + ": work refill launch" +
         (Measured ? ", measured" : "") + NL +
         llvm::StringRef(L.Temps).rtrim().str() + (L.Temps.empty() ? "" : NL) +
         "dim3 const " + G + "(" + L.Config[0] + ");" + NL + "dim3 const " +
         Bl + "(" + L.Config[1] + ");" + NL + Choice + "if (" + Plan +
         ".counter)" + NL + "  " + Refill + "<<<" + Plan + ".grid, " + Bl +
         ", " + Sh + ", " + St + ">>>(" + NL + "      " +
         L.argsThen(Plan + ".counter, " + Plan + ".items") + ");" + NL +
         "else" + NL + "  " + L.Callee + L.TemplateArgs + "<<<" + G + ", " +
         Bl + ", " + Sh + ", " + St + ">>>(" + L.Args + ");" +
         (Measured ? NL + "ww_measured_end(" + MPlan + ");" : "") + "\n" + Ind +
         "}";
}

} // namespace warpwise
