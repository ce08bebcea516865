// SassFp: reading nvcc's floating-point arithmetic from nvdisasm -g -c
// listings, and telling where two compilations round differently. The
// listings are nvdisasm's for this kernel (sm_90, nvcc 13, -lineinfo),
// with -fmad=true and -fmad=false, NOPs and symbols left out:
//
//   __global__ void axpb(const float *a, const float *b, float *out,
//                        float s) {
//     int i = blockIdx.x * blockDim.x + threadIdx.x;
//     float p = a[i] * s;
//     out[i] = p + b[i];
//   }
#include "warpwise/SassFp.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace warpwise;

namespace {

const char *Contracted = R"(	.target	sm_90
	.elftype	@"ET_EXEC"
//--------------------- .text._Z4axpbPKfS0_Pff    --------------------------
	.section	.text._Z4axpbPKfS0_Pff,"ax",@progbits
	.align	128
        .global         _Z4axpbPKfS0_Pff
        .type           _Z4axpbPKfS0_Pff,@function
        .size           _Z4axpbPKfS0_Pff,(.L_x_1 - _Z4axpbPKfS0_Pff)
        .other          _Z4axpbPKfS0_Pff,@"STO_CUDA_ENTRY STV_DEFAULT"
_Z4axpbPKfS0_Pff:
.text._Z4axpbPKfS0_Pff:
	//## File "k.cu", line 1
        /*0000*/                   LDC R1, c[0x0][0x28] ;
	//## File "k.cu", line 2
        /*0010*/                   S2R R0, SR_TID.X ;
        /*0020*/                   S2UR UR4, SR_CTAID.X ;
	//## File "k.cu", line 4
        /*0030*/                   ULDC UR6, c[0x0][0x228] ;
	//## File "k.cu", line 2
        /*0040*/                   LDC R9, c[0x0][RZ] ;
	//## File "k.cu", line 3
        /*0050*/                   LDC.64 R2, c[0x0][0x210] ;
	//## File "k.cu", line 4
        /*0060*/                   LDC.64 R4, c[0x0][0x218] ;
	//## File "k.cu", line 2
        /*0070*/                   IMAD R9, R9, UR4, R0 ;
        /*0080*/                   ULDC.64 UR4, c[0x0][0x208] ;
	//## File "k.cu", line 4
        /*0090*/                   LDC.64 R6, c[0x0][0x220] ;
	//## File "k.cu", line 3
        /*00a0*/                   IMAD.WIDE R2, R9, 0x4, R2 ;
        /*00b0*/                   LDG.E R2, desc[UR4][R2.64] ;
	//## File "k.cu", line 4
        /*00c0*/                   IMAD.WIDE R4, R9, 0x4, R4 ;
        /*00d0*/                   LDG.E R5, desc[UR4][R4.64] ;
        /*00e0*/                   IMAD.WIDE R6, R9, 0x4, R6 ;
        /*00f0*/                   FFMA R9, R2, UR6, R5 ;
        /*0100*/                   STG.E desc[UR4][R6.64], R9 ;
	//## File "k.cu", line 5
        /*0110*/                   EXIT ;
.L_x_0:
        /*0120*/                   BRA `(.L_x_0);
.L_x_1:)";

const char *Separate = R"(	.target	sm_90
	.elftype	@"ET_EXEC"
//--------------------- .text._Z4axpbPKfS0_Pff    --------------------------
	.section	.text._Z4axpbPKfS0_Pff,"ax",@progbits
	.align	128
        .global         _Z4axpbPKfS0_Pff
        .type           _Z4axpbPKfS0_Pff,@function
        .size           _Z4axpbPKfS0_Pff,(.L_x_1 - _Z4axpbPKfS0_Pff)
        .other          _Z4axpbPKfS0_Pff,@"STO_CUDA_ENTRY STV_DEFAULT"
_Z4axpbPKfS0_Pff:
.text._Z4axpbPKfS0_Pff:
	//## File "k.cu", line 1
        /*0000*/                   LDC R1, c[0x0][0x28] ;
	//## File "k.cu", line 2
        /*0010*/                   S2R R0, SR_TID.X ;
        /*0020*/                   S2UR UR4, SR_CTAID.X ;
	//## File "k.cu", line 3
        /*0030*/                   ULDC UR6, c[0x0][0x228] ;
	//## File "k.cu", line 2
        /*0040*/                   LDC R9, c[0x0][RZ] ;
	//## File "k.cu", line 3
        /*0050*/                   LDC.64 R2, c[0x0][0x210] ;
	//## File "k.cu", line 4
        /*0060*/                   LDC.64 R4, c[0x0][0x218] ;
	//## File "k.cu", line 2
        /*0070*/                   IMAD R9, R9, UR4, R0 ;
        /*0080*/                   ULDC.64 UR4, c[0x0][0x208] ;
	//## File "k.cu", line 4
        /*0090*/                   LDC.64 R6, c[0x0][0x220] ;
	//## File "k.cu", line 3
        /*00a0*/                   IMAD.WIDE R2, R9, 0x4, R2 ;
        /*00b0*/                   LDG.E R2, desc[UR4][R2.64] ;
	//## File "k.cu", line 4
        /*00c0*/                   IMAD.WIDE R4, R9, 0x4, R4 ;
        /*00d0*/                   LDG.E R5, desc[UR4][R4.64] ;
        /*00e0*/                   IMAD.WIDE R6, R9, 0x4, R6 ;
	//## File "k.cu", line 3
        /*00f0*/                   FMUL R0, R2, UR6 ;
	//## File "k.cu", line 4
        /*0100*/                   FADD R9, R0, R5 ;
        /*0110*/                   STG.E desc[UR4][R6.64], R9 ;
	//## File "k.cu", line 5
        /*0120*/                   EXIT ;
.L_x_0:
        /*0130*/                   BRA `(.L_x_0);
.L_x_1:)";

const char *Kernel = "_Z4axpbPKfS0_Pff";

MappedLine same(const std::string &File, unsigned Line) {
  return {File, Line};
}

} // namespace

TEST_CASE("nvdisasm's listing gives each function its code and lines",
          "[sassfp]") {
  auto Functions = parseNvdisasm(Contracted);
  REQUIRE(Functions.count(Kernel));
  const SassFunction &F = Functions.at(Kernel);
  bool SawFfma = false;
  for (const SassInstruction &I : F.Code)
    if (I.Opcode == "FFMA") {
      SawFfma = true;
      CHECK(I.Line == 4);
      CHECK(llvm::StringRef(I.File).ends_with("k.cu"));
    }
  CHECK(SawFfma);
  CHECK(hasFpArithmetic(F));
}

/// Everything parseNvdisasm gives, in one comparable text.
static std::string parsed(llvm::StringRef Listing) {
  std::string Out;
  for (const auto &[Name, F] : parseNvdisasm(Listing)) {
    Out += "function " + Name + "/" + F.Name + "\n";
    for (const SassInstruction &I : F.Code) {
      Out += I.File + ":" + std::to_string(I.Line) + " " + I.Guard + " " +
             I.Opcode;
      for (const std::string &Op : I.Operands)
        Out += " <" + Op + ">";
      Out += "\n";
    }
    for (const auto &[Label, At] : F.Labels)
      Out += "label " + Label + " " + std::to_string(At) + "\n";
  }
  return Out;
}

TEST_CASE("the compact listing the cache keeps parses to the same code",
          "[sassfp]") {
  for (const char *Listing : {Contracted, Separate}) {
    std::string Compact = compactNvdisasm(Listing);
    CHECK(parsed(Compact) == parsed(Listing));
    CHECK(Compact.size() * 10 < std::strlen(Listing) * 6);
    // The padding and the directives are gone; the lines are not.
    CHECK(llvm::StringRef(Compact).contains(
        "/*00b0*/ LDG.E R2, desc[UR4][R2.64] ;\n"));
    CHECK_FALSE(llvm::StringRef(Compact).contains(".section"));
    CHECK(llvm::StringRef(Compact).contains("//## File \"k.cu\", line 4\n"));
    CHECK(parsed(Compact).find("label .L_x_0 ") != std::string::npos);
  }
}

TEST_CASE("the same code compares equal", "[sassfp]") {
  auto A = parseNvdisasm(Contracted), B = parseNvdisasm(Contracted);
  CHECK_FALSE(contractionDifference(A.at(Kernel), same, B.at(Kernel), same));
}

TEST_CASE("a product contracted into an add differs from a separate one",
          "[sassfp]") {
  auto A = parseNvdisasm(Separate), B = parseNvdisasm(Contracted);
  auto Why = contractionDifference(A.at(Kernel), same, B.at(Kernel), same);
  REQUIRE(Why);
  CHECK(Why->find("FFMA") != std::string::npos);
  CHECK(Why->find("FMUL") != std::string::npos);
}

TEST_CASE("code moved to other lines compares equal through the line map",
          "[sassfp]") {
  // The same instructions two lines further down, as after an edit above
  // the kernel that added two lines: mapped back, they agree.
  auto A = parseNvdisasm(Contracted), B = parseNvdisasm(R"(	.target	sm_90
	.elftype	@"ET_EXEC"
//--------------------- .text._Z4axpbPKfS0_Pff    --------------------------
	.section	.text._Z4axpbPKfS0_Pff,"ax",@progbits
	.align	128
        .global         _Z4axpbPKfS0_Pff
        .type           _Z4axpbPKfS0_Pff,@function
        .size           _Z4axpbPKfS0_Pff,(.L_x_1 - _Z4axpbPKfS0_Pff)
        .other          _Z4axpbPKfS0_Pff,@"STO_CUDA_ENTRY STV_DEFAULT"
_Z4axpbPKfS0_Pff:
.text._Z4axpbPKfS0_Pff:
	//## File "k.cu", line 3
        /*0000*/                   LDC R1, c[0x0][0x28] ;
	//## File "k.cu", line 4
        /*0010*/                   S2R R0, SR_TID.X ;
        /*0020*/                   S2UR UR4, SR_CTAID.X ;
	//## File "k.cu", line 6
        /*0030*/                   ULDC UR6, c[0x0][0x228] ;
	//## File "k.cu", line 4
        /*0040*/                   LDC R9, c[0x0][RZ] ;
	//## File "k.cu", line 5
        /*0050*/                   LDC.64 R2, c[0x0][0x210] ;
	//## File "k.cu", line 6
        /*0060*/                   LDC.64 R4, c[0x0][0x218] ;
	//## File "k.cu", line 4
        /*0070*/                   IMAD R9, R9, UR4, R0 ;
        /*0080*/                   ULDC.64 UR4, c[0x0][0x208] ;
	//## File "k.cu", line 6
        /*0090*/                   LDC.64 R6, c[0x0][0x220] ;
	//## File "k.cu", line 5
        /*00a0*/                   IMAD.WIDE R2, R9, 0x4, R2 ;
        /*00b0*/                   LDG.E R2, desc[UR4][R2.64] ;
	//## File "k.cu", line 6
        /*00c0*/                   IMAD.WIDE R4, R9, 0x4, R4 ;
        /*00d0*/                   LDG.E R5, desc[UR4][R4.64] ;
        /*00e0*/                   IMAD.WIDE R6, R9, 0x4, R6 ;
        /*00f0*/                   FFMA R9, R2, UR6, R5 ;
        /*0100*/                   STG.E desc[UR4][R6.64], R9 ;
	//## File "k.cu", line 7
        /*0110*/                   EXIT ;
.L_x_0:
        /*0120*/                   BRA `(.L_x_0);
.L_x_1:)");
  LineMapper Back = [](const std::string &File, unsigned Line) {
    return MappedLine{File, Line - 2};
  };
  CHECK_FALSE(contractionDifference(A.at(Kernel), same, B.at(Kernel), Back));
  // Unmapped, the loads' lines differ and the FFMA has no counterpart.
  CHECK(contractionDifference(A.at(Kernel), same, B.at(Kernel), same));
}

namespace {

/// A function of two FFMAs, the second consuming the first, whose
/// multiplier is \p Multiplier's code (the listing's lines 3 and 4).
std::string chained(const std::string &Multiplier, const std::string &Op) {
  return std::string(R"(	.target	sm_90
//--------------------- .text._Z1kv    --------------------------
	.section	.text._Z1kv,"ax",@progbits
_Z1kv:
.text._Z1kv:
	//## File "k.cu", line 3
)") + Multiplier +
         "        /*0040*/                   FFMA R3, R2, " + Op +
         ", R4 ;\n\t//## File \"k.cu\", line 4\n"
         "        /*0050*/                   FFMA R5, R3, 2, R4 ;\n"
         "        /*0060*/                   EXIT ;\n.L_x_0:\n"
         "        /*0070*/                   BRA `(.L_x_0);\n.L_x_1:";
}

} // namespace

TEST_CASE("a select of constants keeps them: each is one the original used",
          "[sassfp]") {
  // The original multiplies by 0.5; a merged side picks 0.5 or 0.45 with a
  // select (`y * (c ? 0.5f : 0.45f) + z`). The FFMA is the same operation,
  // and so is the one that consumes it, whose operand is described one
  // operation deep: FFMA(in;=3F000000|=3EE66666;in) against
  // FFMA(in;=3F000000;in). (Before wave 18 the constants were dropped
  // there, as a constant merged with computed values is, and the two
  // differed.)
  auto A = parseNvdisasm(chained("", "0.5"));
  auto B = parseNvdisasm(
      chained("        /*0010*/                   MOV R6, 0x3f000000 ;\n"
              "        /*0020*/                   MOV R7, 0x3ee66666 ;\n"
              "        /*0030*/                   SEL R8, R6, R7, P0 ;\n",
              "R8"));
  REQUIRE(A.count("_Z1kv"));
  REQUIRE(B.count("_Z1kv"));
  CHECK_FALSE(contractionDifference(A.at("_Z1kv"), same, B.at("_Z1kv"), same));
  // A select between other constants is not the original's.
  auto C = parseNvdisasm(
      chained("        /*0010*/                   MOV R6, 0x3f400000 ;\n"
              "        /*0020*/                   MOV R7, 0x3ee66666 ;\n"
              "        /*0030*/                   SEL R8, R6, R7, P0 ;\n",
              "R8"));
  CHECK(contractionDifference(A.at("_Z1kv"), same, C.at("_Z1kv"), same));
}
