# lit configuration for warpwise: CLI behaviour, analysis output, rewrites.
import os
import lit.formats

config.name = "warpwise"
# bash, so that RUN lines can use `||`, redirections and subshells.
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".cu", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)

config.substitutions.append(("%warpwise", config.warpwise))
config.substitutions.append(("%samples", os.path.join(config.source_root, "samples")))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%nvcc", config.nvcc or "false"))
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_bin_dir, config.warpwise_bin_dir, config.environment.get("PATH", "")])
# The test suite's compile cache (tests/CMakeLists.txt): shared with the
# suite's other entries and emptied at the start of each CTest run, so that
# results do not depend on earlier runs.
config.environment["XDG_CACHE_HOME"] = config.suite_cache
# The tests check what remarks say, so they read them whole; the short form,
# the default, has its own test (cli/remarks-short.test), which unsets this.
config.environment["WARPWISE_REMARKS"] = "full"
# WARPWISE_TOOL_LOG: the suite's nvcc measurements, logged to one file
# when the caller asks (counting them per test; Feedback.cpp).
for var in ["CUDA_PATH", "HOME", "WARPWISE_TOOL_LOG"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
if config.nvcc:
    config.available_features.add("nvcc")
# Tools some tests drive: CMake (and Ninja) to write real compile databases,
# clang-apply-replacements to apply --export-fixes. scripts/setup installs
# them; a test that needs one that is missing is reported UNSUPPORTED.
import shutil
for tool in ["cmake", "ninja", "git", "patch"]:
    if shutil.which(tool):
        config.available_features.add(tool)
if shutil.which("clang-apply-replacements", path=config.environment["PATH"]):
    config.available_features.add("clang-apply-replacements")
