// Copyright Nereid authors.
// uk::MergedModelXml (src/uk/merge.cc): the merged-body reference of the cross-check.
#include <string>

#include <doctest/doctest.h>

#include "nereid/kinematics.h"
#include "nereid/plugins.h"
#include "nereid/simulation.h"
#include "uk/merge.h"

namespace nereid {

TEST_SUITE("uk_merge") {
  TEST_CASE("a welded pair becomes one body at the welded pose, with its mass and its plugins") {
    const std::string path = std::string(NEREID_SOURCE_MODEL_DIR) + "/multi/case_a_l1.xml";
    auto original = Simulation::LoadFile(path);
    const mjModel* m0 = original->model();
    std::string why;
    const std::string xml = uk::MergedModelXml(path, m0, &why);
    REQUIRE_MESSAGE(!xml.empty(), why);
    auto merged = Simulation::LoadString(xml, {}, "merged");
    const mjModel* m = merged->model();
    CHECK(m->njnt == m0->njnt - 1);  // B's free joint is gone
    CHECK(m->neq == m0->neq - 1);    // and the uk: weld
    CHECK(m->nkey == 0);
    const int a = mj_name2id(m, mjOBJ_BODY, "A"), b = mj_name2id(m, mjOBJ_BODY, "B");
    REQUIRE(a > 0);
    REQUIRE(b > 0);
    CHECK(m->body_rootid[b] == a);
    CHECK(m->body_subtreemass[a] == doctest::Approx(m0->body_mass[1] + m0->body_mass[2]));
    // B sits where the weld holds it: the original's reference poses relative to A
    merged->Forward();
    original->Forward();
    const mjData* d = merged->data();
    const mjData* d0 = original->data();
    const Vec3 rel0 = BodyRotation(d0, 1).transpose() * (BodyPosition(d0, 2) - BodyPosition(d0, 1));
    const Vec3 rel = BodyRotation(d, a).transpose() * (BodyPosition(d, b) - BodyPosition(d, a));
    CHECK((rel - rel0).norm() < 1e-9);
    // both buoyancy instances act, on A and on B
    int found = 0;
    for (int i : FindPluginInstances(m, kBuoyancyPlugin)) {
      PluginWrench w;
      REQUIRE(LastPluginWrench(m, d, i, &w));
      found += (w.body == a) + 2 * (w.body == b);
    }
    CHECK(found == 3);
  }

  TEST_CASE("a model without uk: welds is refused with the reason") {
    const std::string path = std::string(NEREID_SOURCE_MODEL_DIR) + "/bluerov/bluerov.xml";
    auto original = Simulation::LoadFile(path);
    std::string why;
    CHECK(uk::MergedModelXml(path, original->model(), &why).empty());
    CHECK(why == "no active uk: welds");
  }
}

}  // namespace nereid
