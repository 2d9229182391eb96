// Copyright Nereid authors.
// The slices of a batch's environments among the worker pool's threads (BatchEnv, src/rl/
// env.cc): each worker w owns a run of consecutive environments on a ring of n, claims it
// from the front, and, when done, claims from the back of the others' slices, its
// predecessor's first. After a call, Rebalance() moves each slice's start to where its
// predecessor's owner and the thieves of that slice met, so that what a thread took over
// from its predecessor is its own in the next call: next to its slice's start, its data
// in that thread's core's cache, instead of going back to the other core. Which thread
// steps an environment never changes results; only where the data sits does.
#ifndef NEREID_SRC_RL_SLICE_RING_H_
#define NEREID_SRC_RL_SLICE_RING_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace nereid::rl {

class SliceRing {
 public:
  // n environments among `workers` slices, at first [n w / W, n (w + 1) / W); 1 <= W <= n
  SliceRing(int n, int workers) : n_(n), slots_(static_cast<size_t>(workers)) {
    for (int w = 0; w <= workers; ++w) begin_.push_back(n * w / workers);
  }

  int workers() const { return static_cast<int>(slots_.size()); }

  // Before a call (no worker claiming): every slice's positions unclaimed.
  void Open() {
    for (size_t w = 0; w < slots_.size(); ++w) {
      slots_[w].range.store(Pack(static_cast<uint32_t>(begin_[w]), static_cast<uint32_t>(begin_[w + 1])),
                            std::memory_order_relaxed);
    }
  }

  // One environment of slice w, claimed from its front (its owner) or its back (a thief);
  // -1 when the slice has none left. Safe from any number of threads at once.
  int ClaimFront(int w) { return Claim(w, true); }
  int ClaimBack(int w) { return Claim(w, false); }

  // After a call, every environment claimed and no thread claiming (the caller has seen
  // them all finish): slice w + 1 starts where slice w's front and back met, the last
  // slice's meeting point (less n) becoming slice 0's start.
  void Rebalance() {
    const int workers = this->workers();
    const int last = Met(workers - 1);
    for (int w = workers - 1; w >= 1; --w) begin_[static_cast<size_t>(w)] = Met(w - 1);
    begin_[0] = last - n_;
    if (begin_[0] < 0) {
      for (int& b : begin_) b += n_;
    }
    begin_[static_cast<size_t>(workers)] = begin_[0] + n_;
  }

  // Slice w's environments in the order its owner claims them.
  std::vector<int> Slice(int w) const {
    std::vector<int> envs;
    for (int p = begin_[static_cast<size_t>(w)]; p < begin_[static_cast<size_t>(w) + 1]; ++p) envs.push_back(Env(p));
    return envs;
  }

 private:
  // a slice's unclaimed positions [front, back), front in the low 32 bits and back in the
  // high ones: one word, so that owner and thief never claim the same position; positions
  // run from begin_[0] (in [0, n)) to begin_[0] + n, environment position mod n
  struct alignas(64) Slot {
    std::atomic<uint64_t> range{0};
  };
  static uint64_t Pack(uint32_t front, uint32_t back) { return uint64_t{back} << 32 | front; }
  int Env(int position) const { return position >= n_ ? position - n_ : position; }
  int Met(int w) const {
    return static_cast<int>(static_cast<uint32_t>(slots_[static_cast<size_t>(w)].range.load(std::memory_order_relaxed)));
  }

  // Relaxed: a claim only needs to be atomic; the caller sees the environments' results
  // and the final ranges through the pool's acquire-release counters.
  int Claim(int w, bool from_front) {
    std::atomic<uint64_t>& range = slots_[static_cast<size_t>(w)].range;
    uint64_t r = range.load(std::memory_order_relaxed);
    for (;;) {
      const auto front = static_cast<uint32_t>(r), back = static_cast<uint32_t>(r >> 32);
      if (front >= back) return -1;
      const uint64_t next = from_front ? Pack(front + 1, back) : Pack(front, back - 1);
      if (range.compare_exchange_weak(r, next, std::memory_order_relaxed)) {
        return Env(static_cast<int>(from_front ? front : back - 1));
      }
    }
  }

  int n_;
  std::vector<Slot> slots_;
  std::vector<int> begin_;  // slice w is positions [begin_[w], begin_[w + 1])
};

}  // namespace nereid::rl

#endif  // NEREID_SRC_RL_SLICE_RING_H_
