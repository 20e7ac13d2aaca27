// Differential testing: random programs (tests/random_program.h) on the
// device, planned as this device, as a GPU and as a phone would plan them,
// against the reference evaluator, bit for bit. CI runs a fixed set of
// seeds; a longer hunt runs more:
//   VKXLA_RANDOM_PROGRAMS=5000 VKXLA_RANDOM_PROGRAMS_SEED=100000
//     build/tests/vkxla_tests --gtest_filter='RandomPrograms.*'
// A failure prints the program's seed and text.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "tests/random_program.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const unsigned long long x = std::strtoull(v, &end, 10);
  return end && *end == '\0' ? x : fallback;
}

// Failures (and other results) recorded so far in the running test.
int Parts() { return ::testing::UnitTest::GetInstance()->current_test_info()->result()->total_part_count(); }

TEST(RandomPrograms, MatchTheReferenceOnEveryKernelShape) {
  const uint64_t count = EnvOr("VKXLA_RANDOM_PROGRAMS", 100), first = EnvOr("VKXLA_RANDOM_PROGRAMS_SEED", 1);
  const std::vector<TargetFeatures> targets = KernelShapeTargets();
  const char* kTargetNames[] = {"this device", "as a GPU", "as a phone"};
  int failing = 0;
  for (uint64_t seed = first; seed < first + count && failing < 20; ++seed) {
    const RandomProgram p = GenerateRandomProgram(seed);
    if (count > 100 && (seed - first) % 100 == 0) {
      std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
      std::fflush(stdout);
    }
    if (std::getenv("VKXLA_RANDOM_PROGRAMS_PRINT")) std::printf("seed %llu\n%s\n", static_cast<unsigned long long>(seed), p.hlo.c_str());
    for (size_t t = 0; t < targets.size(); ++t) {
      const int parts_before = Parts();
      ExpectHloMatchesReferenceOn(targets[t], p.hlo, p.args, Opcode::kAdd,
                                  "random program " + std::to_string(seed) + " planned " + kTargetNames[t] + ":\n" + p.hlo);
      if (Parts() != parts_before) {
        ++failing;
        break;
      }
    }
  }
  ExpectNoValidationMessages();
}

TEST(RandomPrograms, TheSameSeedGivesTheSameProgram) {
  const RandomProgram a = GenerateRandomProgram(7), b = GenerateRandomProgram(7), c = GenerateRandomProgram(8);
  EXPECT_EQ(a.hlo, b.hlo);
  ASSERT_EQ(a.args.size(), b.args.size());
  for (size_t i = 0; i < a.args.size(); ++i) EXPECT_EQ(a.args[i].bytes(), b.args[i].bytes());
  EXPECT_NE(a.hlo, c.hlo);
}

}  // namespace
}  // namespace vkxla
