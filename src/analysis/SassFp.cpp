//===- SassFp.cpp - Floating-point signatures of compiled kernels --------===//
#include "warpwise/SassFp.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <deque>

namespace warpwise {

namespace {

/// Splits "R1, c[0x0][0x28], desc[UR4][R2.64]" at the commas outside
/// brackets.
std::vector<std::string> splitOperands(llvm::StringRef Text) {
  std::vector<std::string> Out;
  int Depth = 0;
  size_t Start = 0;
  for (size_t I = 0; I <= Text.size(); ++I) {
    char C = I < Text.size() ? Text[I] : ',';
    if (C == '[' || C == '(')
      ++Depth;
    else if (C == ']' || C == ')')
      --Depth;
    else if (C == ',' && Depth <= 0) {
      llvm::StringRef Op = Text.slice(Start, I).trim();
      if (!Op.empty())
        Out.push_back(Op.str());
      Start = I + 1;
    }
  }
  return Out;
}

/// "//## File "/a/b.cu", line 12 inlined at ..." -> ("/a/b.cu", 12).
bool parseLineInfo(llvm::StringRef T, std::string &File, unsigned &Line) {
  if (!T.consume_front("//## File \""))
    return false;
  size_t Quote = T.find('"');
  if (Quote == llvm::StringRef::npos)
    return false;
  File = T.take_front(Quote).str();
  T = T.drop_front(Quote + 1).ltrim();
  if (!T.consume_front(", line "))
    return false;
  llvm::StringRef Digits = T.take_while(llvm::isDigit);
  return !Digits.getAsInteger(10, Line);
}

} // namespace

std::map<std::string, SassFunction> parseNvdisasm(llvm::StringRef Listing) {
  std::map<std::string, SassFunction> Out;
  SassFunction *Cur = nullptr;
  std::string File;
  unsigned Line = 0;
  llvm::SmallVector<llvm::StringRef> Lines;
  Listing.split(Lines, '\n');
  for (llvm::StringRef L : Lines) {
    llvm::StringRef T = L.trim();
    if (T.empty())
      continue;
    if (T.starts_with(".text.") && T.ends_with(":")) {
      std::string Name = T.drop_front(6).drop_back().str();
      Cur = &Out[Name];
      Cur->Name = Name;
      File.clear();
      Line = 0;
      continue;
    }
    if (!Cur)
      continue;
    if (T.starts_with("//##")) {
      parseLineInfo(T, File, Line);
      continue;
    }
    if (T.starts_with("/*")) {
      size_t Close = T.find("*/");
      if (Close == llvm::StringRef::npos)
        continue;
      llvm::StringRef Addr = T.substr(2, Close - 2);
      if (Addr.empty() || !llvm::all_of(Addr, llvm::isHexDigit))
        continue;
      llvm::StringRef Ins = T.substr(Close + 2).trim();
      Ins = Ins.take_until([](char C) { return C == ';'; }).trim();
      if (Ins.empty() || Ins.starts_with("/*"))
        continue;
      SassInstruction I;
      I.File = File;
      I.Line = Line;
      if (Ins.starts_with("@")) {
        I.Guard = Ins.take_until([](char C) { return C == ' '; }).str();
        Ins = Ins.drop_front(I.Guard.size()).ltrim();
      }
      llvm::StringRef Op = Ins.take_until([](char C) { return C == ' '; });
      I.Opcode = Op.str();
      I.Operands = splitOperands(Ins.drop_front(Op.size()));
      Cur->Code.push_back(std::move(I));
      continue;
    }
    // A label: ".L_x_12:" or a subroutine's "$__internal_0_$...:".
    if (T.ends_with(":") && !T.contains(' ')) {
      Cur->Labels[T.drop_back().str()] = Cur->Code.size();
    }
  }
  return Out;
}

std::string compactNvdisasm(llvm::StringRef Listing) {
  std::string Out;
  Out.reserve(Listing.size() / 2);
  while (!Listing.empty()) {
    auto [Line, Rest] = Listing.split('\n');
    Listing = Rest;
    llvm::StringRef T = Line.trim();
    // The same tests as parseNvdisasm's, in its order.
    bool Keep = (T.starts_with(".text.") && T.ends_with(":")) ||
                T.starts_with("//##") || (T.ends_with(":") && !T.contains(' '));
    if (!Keep && T.starts_with("/*")) {
      size_t Close = T.find("*/");
      if (Close == llvm::StringRef::npos)
        continue;
      // The address, then the instruction without the columns' padding.
      Out += T.take_front(Close + 2);
      Out += ' ';
      Out += T.drop_front(Close + 2).trim();
      Out += '\n';
      continue;
    }
    if (Keep) {
      Out += T;
      Out += '\n';
    }
  }
  return Out;
}

namespace {

/// Register numbers: R0-R255 as 0-255, UR0-UR63 as 256-319.
constexpr int NoRegister = -1;
constexpr int UniformBase = 256;
constexpr int RegisterCount = 320;

/// The register an operand names (its first, for a pair), or NoRegister.
int registerOf(llvm::StringRef Op) {
  Op = Op.ltrim("-|!~");
  bool Uniform = Op.consume_front("UR");
  if (!Uniform && !Op.consume_front("R"))
    return NoRegister;
  unsigned N;
  llvm::StringRef Digits = Op.take_while(llvm::isDigit);
  if (Digits.empty() || Digits.getAsInteger(10, N))
    return NoRegister; // RZ, URZ
  return Uniform ? UniformBase + static_cast<int>(N) : static_cast<int>(N);
}

llvm::StringRef baseOpcode(llvm::StringRef Op) {
  return Op.take_until([](char C) { return C == '.'; });
}

bool isFpArithmetic(const SassInstruction &I) {
  llvm::StringRef B = baseOpcode(I.Opcode);
  if (B == "HFMA2" && llvm::StringRef(I.Opcode).contains(".MMA") &&
      I.Operands.size() > 2 && llvm::StringRef(I.Operands[1]).ltrim("-") == "RZ")
    return false; // `HFMA2.MMA R5, -RZ, RZ, 1.5, 0`: a move of a constant.
  return B == "FFMA" || B == "FMUL" || B == "FADD" || B == "DFMA" ||
         B == "DMUL" || B == "DADD" || B == "HFMA2" || B == "HMUL2" ||
         B == "HADD2" || B == "FFMA32I" || B == "FMUL32I" ||
         B == "FADD32I" || B == "HFMA2_32I" || B == "HMUL2_32I" ||
         B == "HADD2_32I";
}

/// Instructions that write no general register though their first operand
/// may name one.
bool writesNoRegister(llvm::StringRef B) {
  return B.starts_with("ST") || B == "RED" || B == "REDG" || B == "REDUX" ||
         B == "BRA" || B == "BRX" || B == "JMP" || B == "JMX" ||
         B == "EXIT" || B == "RET" || B == "CALL" || B == "BAR" ||
         B == "BSSY" || B == "BSYNC" || B == "WARPSYNC" || B == "MEMBAR" ||
         B == "NOP" || B == "YIELD" || B == "DEPBAR" || B == "ERRBAR" ||
         B == "CCTL" || B == "FENCE" || B == "BPT" || B == "KILL" ||
         B == "SYNCS" || B == "ARRIVES";
}

/// How many consecutive registers an instruction writes.
unsigned destinationWidth(llvm::StringRef Opcode) {
  if (Opcode.contains(".128"))
    return 4;
  llvm::StringRef B = baseOpcode(Opcode);
  if (Opcode.contains(".64") || Opcode.contains(".WIDE") ||
      B.starts_with("D") || Opcode.starts_with("F2F.F64") ||
      Opcode.starts_with("I2F.F64") || Opcode.contains(".F64"))
    return B == "DSETP" ? 0 : 2;
  return 1;
}

/// The register an instruction writes first, or NoRegister.
int destinationOf(const SassInstruction &I) {
  llvm::StringRef B = baseOpcode(I.Opcode);
  if (writesNoRegister(B) || I.Operands.empty())
    return NoRegister;
  size_t At = 0;
  // `SHFL.IDX PT, R5, ...`, `VOTE.ANY R3, PT, P0`: a predicate first.
  llvm::StringRef First = I.Operands[0];
  if ((First == "PT" || (First.size() == 2 && First[0] == 'P')) &&
      I.Operands.size() > 1)
    At = 1;
  llvm::StringRef D = I.Operands[At];
  if (D.starts_with("-") || D.starts_with("|") || D.starts_with("["))
    return NoRegister;
  return registerOf(D);
}

/// Moves and selects: their result is one of their inputs, unrounded.
bool isCopy(const SassInstruction &I) {
  llvm::StringRef Op = I.Opcode;
  llvm::StringRef B = baseOpcode(Op);
  return B == "MOV" || B == "UMOV" || Op.starts_with("IMAD.MOV") ||
         B == "SEL" || B == "FSEL" || B == "USEL" || B == "R2UR";
}

/// The control flow of a function: basic blocks and their successors.
struct Cfg {
  std::vector<unsigned> Start;              ///< First instruction per block.
  std::vector<std::vector<unsigned>> Succ;  ///< Successor blocks.
  std::vector<unsigned> BlockOf;            ///< Instruction -> block.
};

std::string branchTarget(const SassInstruction &I) {
  for (const std::string &Op : I.Operands) {
    llvm::StringRef O = Op;
    size_t L = O.find("`(");
    if (L == llvm::StringRef::npos)
      continue;
    O = O.drop_front(L + 2);
    return O.take_until([](char C) { return C == ')'; }).str();
  }
  return "";
}

bool conditional(const SassInstruction &I) {
  if (!I.Guard.empty() && I.Guard != "@PT")
    return true;
  // `BRA P2, `(.L_x_1)`: taken where P2 holds.
  return !I.Operands.empty() &&
         llvm::StringRef(I.Operands[0]).ltrim("!").starts_with("P") &&
         I.Operands[0] != "PT";
}

Cfg buildCfg(const SassFunction &F) {
  Cfg G;
  unsigned N = F.Code.size();
  std::vector<bool> Leader(N + 1, false);
  Leader[0] = true;
  for (const auto &[Label, At] : F.Labels)
    if (At < N)
      Leader[At] = true;
  for (unsigned I = 0; I < N; ++I) {
    llvm::StringRef B = baseOpcode(F.Code[I].Opcode);
    if (B == "BRA" || B == "BRX" || B == "JMP" || B == "JMX" ||
        B == "EXIT" || B == "RET" || B == "CALL")
      Leader[I + 1] = true;
  }
  G.BlockOf.assign(N, 0);
  for (unsigned I = 0; I < N; ++I) {
    if (Leader[I])
      G.Start.push_back(I);
    G.BlockOf[I] = G.Start.size() - 1;
  }
  G.Succ.assign(G.Start.size(), {});
  std::vector<unsigned> Returns, ReturnSites;
  auto BlockAt = [&](unsigned Ins) -> int {
    return Ins < N ? static_cast<int>(G.BlockOf[Ins]) : -1;
  };
  for (unsigned Bk = 0; Bk < G.Start.size(); ++Bk) {
    unsigned End = Bk + 1 < G.Start.size() ? G.Start[Bk + 1] : N;
    const SassInstruction &Last = F.Code[End - 1];
    llvm::StringRef B = baseOpcode(Last.Opcode);
    bool FallsThrough = true;
    auto Add = [&](int To) {
      if (To >= 0 && !llvm::is_contained(G.Succ[Bk], unsigned(To)))
        G.Succ[Bk].push_back(To);
    };
    if (B == "BRA" || B == "JMP" || B == "CALL") {
      auto It = F.Labels.find(branchTarget(Last));
      if (It != F.Labels.end())
        Add(BlockAt(It->second));
      // A call continues in its subroutine, and comes back from its RET.
      FallsThrough =
          (B == "CALL" && It == F.Labels.end()) || conditional(Last);
      if (B == "CALL" && It != F.Labels.end())
        ReturnSites.push_back(End);
    } else if (B == "BRX" || B == "JMX") {
      for (const auto &[Label, At] : F.Labels)
        Add(BlockAt(At)); // An indirect branch may go anywhere.
      FallsThrough = conditional(Last);
    } else if (B == "EXIT" || B == "RET") {
      FallsThrough = conditional(Last);
    }
    if (FallsThrough)
      Add(BlockAt(End));
    if (B == "RET")
      Returns.push_back(Bk);
  }
  // Subroutines (a division's slow path) return to every call site: a
  // merge of their flows, the same in both compilations.
  for (unsigned R : Returns)
    for (unsigned Site : ReturnSites)
      if (BlockAt(Site) >= 0 &&
          !llvm::is_contained(G.Succ[R], unsigned(BlockAt(Site))))
        G.Succ[R].push_back(BlockAt(Site));
  return G;
}

/// Reaching definitions: for each register, the instructions whose result
/// may be in it. -1 stands for a value from outside (a parameter, the
/// caller).
using DefSet = std::set<int>;
using RegState = std::map<int, DefSet>;

void applyDefinition(const SassInstruction &I, int Index, RegState &S) {
  int D = destinationOf(I);
  if (D == NoRegister)
    return;
  unsigned W = destinationWidth(I.Opcode);
  for (unsigned K = 0; K < std::max(W, 1u); ++K) {
    int R = D + static_cast<int>(K);
    if (R >= RegisterCount)
      break;
    if (I.Guard.empty() || I.Guard == "@PT")
      S[R] = {Index};
    else
      S[R].insert(Index);
  }
}

std::vector<RegState> reachingIn(const SassFunction &F, const Cfg &G) {
  std::vector<RegState> In(G.Start.size()), Out(G.Start.size());
  std::deque<unsigned> Work;
  std::vector<bool> Queued(G.Start.size(), true);
  for (unsigned B = 0; B < G.Start.size(); ++B)
    Work.push_back(B);
  unsigned N = F.Code.size();
  while (!Work.empty()) {
    unsigned B = Work.front();
    Work.pop_front();
    Queued[B] = false;
    RegState S = In[B];
    unsigned End = B + 1 < G.Start.size() ? G.Start[B + 1] : N;
    for (unsigned I = G.Start[B]; I < End; ++I)
      applyDefinition(F.Code[I], I, S);
    if (S == Out[B] && !Out[B].empty())
      continue;
    Out[B] = std::move(S);
    for (unsigned Next : G.Succ[B]) {
      bool Changed = false;
      for (const auto &[Reg, Defs] : Out[B]) {
        DefSet &Into = In[Next][Reg];
        size_t Before = Into.size();
        Into.insert(Defs.begin(), Defs.end());
        Changed |= Into.size() != Before;
      }
      if (Changed && !Queued[Next]) {
        Queued[Next] = true;
        Work.push_back(Next);
      }
    }
  }
  return In;
}

/// An immediate as a bit pattern: `1.5` in an FMUL and `0x3fc00000` in
/// the MOV that feeds an FSEL are the same value.
std::string literalValue(llvm::StringRef Op) {
  if (Op == "RZ" || Op == "URZ")
    return "=0";
  if (Op.starts_with("0x")) {
    unsigned long long V;
    if (!Op.drop_front(2).getAsInteger(16, V))
      return "=" + llvm::utohexstr(V);
  }
  double D;
  if (!Op.getAsDouble(D)) {
    float F = static_cast<float>(D);
    unsigned Bits;
    static_assert(sizeof(Bits) == sizeof(F));
    std::memcpy(&Bits, &F, sizeof(F));
    // An integer immediate names itself; a float one its float bits.
    if (Op.contains('.') || Op.contains('e') || Op.contains("INF") ||
        Op.contains("NAN"))
      return "=" + llvm::utohexstr(Bits);
    return "=" + llvm::utohexstr(static_cast<unsigned long long>(D));
  }
  return "=" + Op.str();
}

/// The bits of a half-precision value printed as a decimal, if exact.
std::optional<unsigned> halfBits(llvm::StringRef Text) {
  double D;
  if (Text.getAsDouble(D))
    return std::nullopt;
  if (D == 0)
    return std::signbit(D) ? 0x8000u : 0u;
  unsigned Sign = D < 0 ? 0x8000u : 0u;
  D = std::fabs(D);
  int Exp;
  double Mant = std::frexp(D, &Exp); // D = Mant * 2^Exp, Mant in [0.5, 1)
  int Biased = Exp - 1 + 15;
  if (Biased <= 0 || Biased >= 31)
    return std::nullopt;
  double Frac = (Mant * 2 - 1) * 1024;
  if (Frac != std::floor(Frac))
    return std::nullopt;
  return Sign | (static_cast<unsigned>(Biased) << 10) |
         static_cast<unsigned>(Frac);
}

/// `HFMA2.MMA R9, -RZ, RZ, 1.8125, 0`: nvcc's way of moving the 32-bit
/// constant 0x3f400000 (0.75f) into a register, as two halves.
std::optional<std::string> halfPairMove(const SassInstruction &I) {
  if (!llvm::StringRef(I.Opcode).starts_with("HFMA2.MMA") ||
      I.Operands.size() != 5 || I.Operands[1] != "-RZ" ||
      I.Operands[2] != "RZ")
    return std::nullopt;
  auto Hi = halfBits(I.Operands[3]), Lo = halfBits(I.Operands[4]);
  if (!Hi || !Lo)
    return "=half:" + I.Operands[3] + "," + I.Operands[4];
  return "=" + llvm::utohexstr((static_cast<unsigned long long>(*Hi) << 16) |
                               *Lo);
}

/// Describes values by how they are computed: an operand is the set of
/// values that may reach it (through moves, selects and control-flow
/// merges), each written as its operation over its own operands' first
/// level ("FMUL(load@27|load@R)"), down to loads (by their source line;
/// sameLeaf says why a load in the rewritten lines is any load),
/// parameters and literals. Lines of arithmetic are left out: nvcc places a
/// hoisted or merged operation on whichever line it likes.
class Signer {
public:
  Signer(const SassFunction &F, const LineMapper &Map)
      : F(F), Map(Map), G(buildCfg(F)), In(reachingIn(F, G)) {}

  std::vector<FpSignature> signatures() {
    // What reaches the registers read by every instruction that an
    // operand's description may look into (their inputs may come from later
    // in the listing). Only those registers are kept: a copy of the whole
    // state at each instruction took a tenth of a warm rewrite's time.
    walk([&](unsigned I, const RegState &S) {
      const SassInstruction &Ins = F.Code[I];
      if (!isCopy(Ins) && !isFpArithmetic(Ins))
        return;
      RegState &Read = Before[I];
      for (const std::string &Op : Ins.Operands) {
        int R = registerOf(llvm::StringRef(Op).ltrim("-|"));
        if (R == NoRegister)
          continue;
        if (auto It = S.find(R); It != S.end())
          Read.emplace(R, It->second);
      }
    });
    std::vector<FpSignature> Out;
    for (unsigned I = 0; I < F.Code.size(); ++I)
      if (isFpArithmetic(F.Code[I]))
        Out.push_back(sign(I));
    return Out;
  }

private:
  const SassFunction &F;
  const LineMapper &Map;
  Cfg G;
  std::vector<RegState> In;
  /// Before each copy and arithmetic instruction, the definitions that
  /// reach the registers it reads.
  std::map<unsigned, RegState> Before;
  std::map<int, std::set<std::string>> Leaves, Firsts; ///< Memos.

  template <typename Fn> void walk(Fn Visit) {
    for (unsigned B = 0; B < G.Start.size(); ++B) {
      RegState S = In[B];
      unsigned End = B + 1 < G.Start.size() ? G.Start[B + 1] : F.Code.size();
      for (unsigned I = G.Start[B]; I < End; ++I) {
        Visit(I, S);
        applyDefinition(F.Code[I], I, S);
      }
    }
  }

  std::string lineText(const SassInstruction &I) const {
    MappedLine M = Map(I.File, I.Line);
    std::string L = M.Line == MappedLine::Rewritten ? std::string("R")
                                                   : std::to_string(M.Line);
    return M.File.empty() ? L : M.File + ":" + L;
  }

  /// The definitions that reach operand \p K of instruction \p I (-1: a
  /// value from outside), or none for a literal.
  std::vector<int> reaching(unsigned I, size_t K, std::string &Literal) {
    llvm::StringRef Op = llvm::StringRef(F.Code[I].Operands[K]).ltrim("-|");
    int R = registerOf(Op);
    if (R == NoRegister) {
      Literal = Op.starts_with("c[0x0]") ? "param"
                : Op.starts_with("c[")   ? "const"
                                         : literalValue(Op.rtrim("|"));
      return {};
    }
    const RegState &S = Before[I];
    auto It = S.find(R);
    if (It == S.end())
      return {-1};
    return std::vector<int>(It->second.begin(), It->second.end());
  }

  /// Operand \p K of \p I described at \p Level (0: leaves, 1: one
  /// operation deep).
  std::set<std::string> operandValues(unsigned I, size_t K, unsigned Level) {
    std::string Literal;
    std::vector<int> Defs = reaching(I, K, Literal);
    if (Defs.empty())
      return {Literal};
    std::set<std::string> Out;
    for (int D : Defs) {
      const auto &More = Level ? firstLevel(D) : leaves(D);
      Out.insert(More.begin(), More.end());
    }
    // A constant merged with computed values (an accumulator's start, a
    // loop that ran no iteration) may sit in a register of its own or be
    // folded away, as register allocation has it: one level down, where
    // values are compared whole, it is left out. A select of constants
    // alone (a merged side's `c ? 0.5f : 0.45f`) keeps them: each is one
    // the original used.
    bool Computed = llvm::any_of(Out, [](const std::string &V) {
      return !llvm::StringRef(V).starts_with("=");
    });
    if (Level == 0 && Out.size() > 1 && Computed)
      for (auto It = Out.begin(); It != Out.end();)
        It = llvm::StringRef(*It).starts_with("=") ? Out.erase(It)
                                                   : std::next(It);
    return Out;
  }

  /// The first operand index that is a source (0 when nothing is written).
  size_t firstSource(const SassInstruction &I) const {
    if (destinationOf(I) == NoRegister)
      return 0;
    llvm::StringRef First = I.Operands[0];
    return (First == "PT" || (First.size() == 2 && First[0] == 'P')) ? 2 : 1;
  }

  /// A move or select: the values of its inputs, at \p Level.
  std::set<std::string> throughCopy(int Def, unsigned Level) {
    const SassInstruction &I = F.Code[Def];
    std::set<std::string> Out;
    // `IMAD.MOV.U32 R1, RZ, RZ, R2` moves its last operand.
    size_t First = llvm::StringRef(I.Opcode).starts_with("IMAD.MOV")
                       ? I.Operands.size() - 1
                       : firstSource(I);
    for (size_t K = First; K < I.Operands.size(); ++K) {
      llvm::StringRef Op = I.Operands[K];
      if (Op.starts_with("P") || Op.starts_with("!P") || Op == "PT" ||
          Op.starts_with("UP") || Op.starts_with("!UP"))
        continue; // A select's predicate.
      auto V = operandValues(Def, K, Level);
      Out.insert(V.begin(), V.end());
    }
    return Out;
  }

  const std::set<std::string> &leaves(int Def) {
    static const std::set<std::string> Outside = {"in"};
    if (Def < 0)
      return Outside;
    if (auto It = Leaves.find(Def); It != Leaves.end())
      return It->second;
    Leaves[Def] = {"loop"}; // Breaks cycles through loops.
    const SassInstruction &I = F.Code[Def];
    std::set<std::string> Out;
    if (isCopy(I))
      Out = throughCopy(Def, 0);
    else if (auto Packed = halfPairMove(I))
      Out = {*Packed};
    else if (llvm::StringRef(I.Opcode).starts_with("CS2R") &&
             I.Operands.size() == 2 && I.Operands[1] == "SRZ")
      Out = {"=0"};
    else
      Out = {kindOf(I)};
    return Leaves[Def] = Out;
  }

  const std::set<std::string> &firstLevel(int Def) {
    if (Def < 0)
      return leaves(Def);
    if (auto It = Firsts.find(Def); It != Firsts.end())
      return It->second;
    Firsts[Def] = {"loop"};
    const SassInstruction &I = F.Code[Def];
    std::set<std::string> Out;
    if (isCopy(I)) {
      Out = throughCopy(Def, 1);
    } else if (isFpArithmetic(I)) {
      std::vector<std::string> Ops;
      for (size_t K = firstSource(I); K < I.Operands.size(); ++K)
        Ops.push_back(llvm::StringRef(I.Operands[K]).starts_with("-")
                          ? "-" + llvm::join(operandValues(Def, K, 0), "|")
                          : llvm::join(operandValues(Def, K, 0), "|"));
      if (Ops.size() >= 2)
        std::sort(Ops.begin(), Ops.begin() + 2);
      Out = {I.Opcode + "(" + llvm::join(Ops, ";") + ")"};
    } else {
      Out = leaves(Def);
    }
    return Firsts[Def] = Out;
  }

  std::string kindOf(const SassInstruction &I) const {
    llvm::StringRef B = baseOpcode(I.Opcode);
    if (B.starts_with("LD") || B == "ULDC" || B == "ATOM" || B == "ATOMS" ||
        B == "ATOMG" || B == "SHFL")
      return "load@" + lineText(I);
    if (isFpArithmetic(I) || B == "MUFU" || B == "F2F" || B == "I2F" ||
        B == "F2I" || B == "FRND")
      return I.Opcode;
    return "int";
  }

  FpSignature sign(unsigned I) {
    const SassInstruction &Ins = F.Code[I];
    FpSignature Sig;
    Sig.Line = lineText(Ins);
    Sig.Opcode = Ins.Opcode;
    for (size_t K = firstSource(Ins); K < Ins.Operands.size(); ++K) {
      FpOperand O;
      llvm::StringRef Op = Ins.Operands[K];
      if (Op.starts_with("-"))
        O.Sign = "-";
      llvm::StringRef Rest = Op.ltrim("-|UR0123456789");
      if (Rest.contains(".H"))
        O.Part = Rest.substr(Rest.find(".H")).take_until([](char C) {
                   return C == '|';
                 }).str();
      O.Defs = operandValues(I, K, 1);
      Sig.Operands.push_back(std::move(O));
    }
    llvm::StringRef B = baseOpcode(Ins.Opcode);
    // a * b + c: the product's operands commute, and a negation on either
    // is one on the product; a + b and a * b commute.
    if (B.contains("FMA") && Sig.Operands.size() >= 2) {
      bool Neg = false;
      for (unsigned K = 0; K < 2; ++K)
        if (Sig.Operands[K].Sign == "-") {
          Neg = !Neg;
          Sig.Operands[K].Sign.clear();
        }
      Sig.ProductSign = Neg ? "-" : "";
    }
    Sig.Commutes = Sig.Operands.size() >= 2 && !B.contains("32I");
    return Sig;
  }
};

/// "FFMA(-FADD|FFMA;MUFU.RCP;=1)": the operation, and the leaves each of
/// its operands may be ("-" first for a negated one).
struct Shape {
  llvm::StringRef Op;
  llvm::SmallVector<llvm::StringRef, 3> Args;
};

std::optional<Shape> parseShape(llvm::StringRef Text) {
  size_t Open = Text.find('(');
  if (Open == llvm::StringRef::npos || !Text.ends_with(")"))
    return std::nullopt;
  Shape S;
  S.Op = Text.take_front(Open);
  Text.drop_front(Open + 1).drop_back().split(S.Args, ';');
  return S;
}

/// Whether two leaves may be the same value. nvcc attributes a load that
/// both sides of a branch make to whichever line it keeps: one of the
/// original's branches (in the rewritten lines), or a statement after them;
/// in the rewrite, to the merged code. So a load in the rewritten lines may
/// be any load of the other side. Loads elsewhere keep their line: it is
/// what tells `n` from `s` in `n * n + s * s`, and a false difference only
/// declines a rewrite, where a false match would change results.
bool sameLeaf(llvm::StringRef X, llvm::StringRef Y) {
  if (X == Y)
    return true;
  auto Rewritten = [](llvm::StringRef L) {
    return L == "load@R" || (L.starts_with("load@") && L.ends_with(":R"));
  };
  return X.starts_with("load@") && Y.starts_with("load@") &&
         (Rewritten(X) || Rewritten(Y));
}

bool sameLeaves(llvm::StringRef A, llvm::StringRef B) {
  if (A.consume_front("-") != B.consume_front("-"))
    return false;
  llvm::SmallVector<llvm::StringRef, 4> LA, LB;
  A.split(LA, '|');
  B.split(LB, '|');
  return llvm::any_of(LA, [&](llvm::StringRef X) {
    return llvm::any_of(LB, [&](llvm::StringRef Y) { return sameLeaf(X, Y); });
  });
}

/// Whether two values, described one operation deep, may be the same.
bool sameValue(const std::string &A, const std::string &B) {
  if (sameLeaf(A, B))
    return true;
  auto SA = parseShape(A), SB = parseShape(B);
  if (!SA || !SB || SA->Op != SB->Op || SA->Args.size() != SB->Args.size())
    return false;
  auto From = [&](size_t First) {
    for (size_t K = First; K < SA->Args.size(); ++K)
      if (!sameLeaves(SA->Args[K], SB->Args[K]))
        return false;
    return true;
  };
  if (SA->Args.size() < 2)
    return From(0);
  return From(2) && ((sameLeaves(SA->Args[0], SB->Args[0]) &&
                      sameLeaves(SA->Args[1], SB->Args[1])) ||
                     (sameLeaves(SA->Args[0], SB->Args[1]) &&
                      sameLeaves(SA->Args[1], SB->Args[0])));
}

/// Whether two operands can hold the same value. Register allocation makes
/// the sources of a value imprecise: a register may still hold a dead
/// value on a path where the program never reads it (a loop's first
/// iteration peeled, a zero-trip path), and a select of the rewrite joins
/// what two branches computed apart. Two operands agree when some value
/// may reach both.
bool sameOperand(const FpOperand &A, const FpOperand &B) {
  if (A.Sign != B.Sign || A.Part != B.Part)
    return false;
  for (const std::string &X : A.Defs)
    for (const std::string &Y : B.Defs)
      if (sameValue(X, Y))
        return true;
  return false;
}

bool sameOperation(const FpSignature &A, const FpSignature &B) {
  if (A.Opcode != B.Opcode ||
      A.ProductSign != B.ProductSign ||
      A.Operands.size() != B.Operands.size())
    return false;
  auto From = [&](size_t First) {
    for (size_t K = First; K < A.Operands.size(); ++K)
      if (!sameOperand(A.Operands[K], B.Operands[K]))
        return false;
    return true;
  };
  if (A.Operands.size() < 2)
    return From(0);
  if (!From(2))
    return false;
  if (sameOperand(A.Operands[0], B.Operands[0]) &&
      sameOperand(A.Operands[1], B.Operands[1]))
    return true;
  return A.Commutes && sameOperand(A.Operands[0], B.Operands[1]) &&
         sameOperand(A.Operands[1], B.Operands[0]);
}

/// The operations of \p Of that no operation of \p In matches.
std::vector<const FpSignature *> unmatched(const std::vector<FpSignature> &Of,
                                           const std::vector<FpSignature> &In) {
  std::multimap<std::string, const FpSignature *> ByHead;
  for (const FpSignature &S : In)
    ByHead.insert({S.Opcode, &S});
  std::vector<const FpSignature *> Out;
  for (const FpSignature &S : Of) {
    auto [Lo, Hi] = ByHead.equal_range(S.Opcode);
    bool Found = false;
    for (auto It = Lo; It != Hi && !Found; ++It)
      Found = sameOperation(S, *It->second);
    if (!Found)
      Out.push_back(&S);
  }
  return Out;
}

} // namespace

std::string FpSignature::text() const {
  std::string Out = Line + " " + Opcode;
  for (size_t K = 0; K < Operands.size(); ++K) {
    const FpOperand &O = Operands[K];
    Out += K ? " ; " : " ";
    if (K == 0)
      Out += ProductSign;
    Out += O.Sign;
    Out += "{" + llvm::join(O.Defs, ",") + "}" + O.Part;
  }
  return Out;
}

std::vector<FpSignature> fpSignatures(const SassFunction &F,
                                      const LineMapper &Map) {
  return Signer(F, Map).signatures();
}

bool hasFpArithmetic(const SassFunction &F) {
  return llvm::any_of(F.Code, isFpArithmetic);
}

std::optional<std::string>
contractionDifference(const SassFunction &Before, const LineMapper &MapBefore,
                      const SassFunction &After, const LineMapper &MapAfter) {
  return contractionDifference(std::vector<const SassFunction *>{&Before},
                               MapBefore,
                               std::vector<const SassFunction *>{&After},
                               MapAfter);
}

std::optional<std::string>
contractionDifference(const std::vector<const SassFunction *> &Before,
                      const LineMapper &MapBefore,
                      const std::vector<const SassFunction *> &After,
                      const LineMapper &MapAfter) {
  std::vector<FpSignature> A, B;
  for (const SassFunction *F : Before) {
    auto S = fpSignatures(*F, MapBefore);
    A.insert(A.end(), S.begin(), S.end());
  }
  for (const SassFunction *F : After) {
    auto S = fpSignatures(*F, MapAfter);
    B.insert(B.end(), S.begin(), S.end());
  }
  std::vector<const FpSignature *> OnlyA = unmatched(A, B);
  std::vector<const FpSignature *> OnlyB = unmatched(B, A);
  if (OnlyA.empty() && OnlyB.empty())
    return std::nullopt;
  if (std::getenv("WARPWISE_DEBUG_FP")) {
    for (const FpSignature *S : OnlyA)
      llvm::errs() << "original only: " << S->text() << "\n";
    for (const FpSignature *S : OnlyB)
      llvm::errs() << "rewrite only: " << S->text() << "\n";
  }
  auto Where = [](const FpSignature *S) {
    llvm::StringRef L = S->Line;
    size_t Colon = L.rfind(':');
    llvm::StringRef File = Colon == llvm::StringRef::npos ? "" : L.take_front(Colon);
    llvm::StringRef Num = Colon == llvm::StringRef::npos ? L : L.drop_front(Colon + 1);
    std::string Out = (S->Opcode[0] == 'D' ? "a " : "an ") + S->Opcode;
    if (Num == "R")
      return Out + " in the rewritten lines";
    Out += " at line " + Num.str();
    if (!File.empty())
      Out += " of " + File.rsplit('/').second.str();
    return Out;
  };
  auto Count = [&](const std::vector<const FpSignature *> &V,
                   const char *Whose) {
    std::string Out = std::to_string(V.size()) + " operation" +
                      (V.size() == 1 ? "" : "s") + " of " + Whose;
    if (!V.empty())
      Out += " (the first " + Where(V.front()) + ")";
    return Out;
  };
  std::string Out = "nvcc rounds the floating-point arithmetic differently "
                    "after the rewrite: " +
                    Count(OnlyA, "the original") + " and " +
                    Count(OnlyB, "the rewrite") + " have no counterpart";
  return Out;
}

EditLineMap::EditLineMap(llvm::StringRef Original, std::vector<Range> Ranges) {
  std::sort(Ranges.begin(), Ranges.end(),
            [](const Range &A, const Range &B) { return A.Offset < B.Offset; });
  std::vector<unsigned> Starts = {0}; // Of the original's lines.
  for (unsigned I = 0; I < Original.size(); ++I)
    if (Original[I] == '\n')
      Starts.push_back(I + 1);
  unsigned Lines = Starts.size();
  auto LineOf = [&](unsigned Offset) { // 1-based
    return static_cast<unsigned>(
        std::upper_bound(Starts.begin(), Starts.end(), Offset) -
        Starts.begin());
  };
  TouchedOriginal.assign(Lines + 2, false);
  for (const Range &R : Ranges) {
    unsigned First = LineOf(R.Offset);
    unsigned Last = LineOf(R.Offset + (R.Length ? R.Length - 1 : 0));
    for (unsigned L = First; L <= Last && L < TouchedOriginal.size(); ++L)
      TouchedOriginal[L] = true;
  }
  // The edited text is the original's bytes between the edits and each
  // edit's text: a line of it ending in a copied newline is a copy of that
  // original line when no edit touched the line.
  FromEdited.assign(2, MappedLine::Rewritten);
  unsigned EditedLine = 1;
  auto Copy = [&](unsigned From, unsigned To) {
    for (unsigned I = From; I < To; ++I)
      if (Original[I] == '\n') {
        unsigned OL = LineOf(I);
        if (FromEdited.size() <= EditedLine + 1)
          FromEdited.resize(EditedLine + 2, MappedLine::Rewritten);
        if (!TouchedOriginal[OL])
          FromEdited[EditedLine] = OL;
        ++EditedLine;
      }
  };
  unsigned Pos = 0;
  for (const Range &R : Ranges) {
    Copy(Pos, std::min<unsigned>(R.Offset, Original.size()));
    EditedLine += R.NewLines;
    Pos = std::min<unsigned>(R.Offset + R.Length, Original.size());
  }
  Copy(Pos, Original.size());
  if (FromEdited.size() <= EditedLine + 1)
    FromEdited.resize(EditedLine + 2, MappedLine::Rewritten);
  if (!Original.empty() && Original.back() != '\n' && !TouchedOriginal[Lines])
    FromEdited[EditedLine] = Lines; // The last line has no newline.
}

long EditLineMap::original(unsigned Line) const {
  if (Line < TouchedOriginal.size() && TouchedOriginal[Line])
    return MappedLine::Rewritten;
  return Line;
}

long EditLineMap::edited(unsigned Line) const {
  return Line < FromEdited.size() ? FromEdited[Line] : MappedLine::Rewritten;
}

} // namespace warpwise
