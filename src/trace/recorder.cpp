#include "trace/recorder.h"

#include <utility>

namespace shardroof::trace {

void Recorder::Sink::init(Recorder* owner, std::size_t capacity) {
  owner_ = owner;
  capacity_ = capacity;
  // Written once here, so the pages exist before any timed region: a first
  // touch inside one would cost a page fault per few dozen spans.
  events.resize(capacity);
  events.clear();
}

void Recorder::Sink::record(const coll::TraceEvent& event) noexcept {
  // Reserved up front: push_back never allocates below capacity, so a
  // recording span costs no allocation inside a timed region.
  if (events.size() >= capacity_) {
    ++dropped;
    return;
  }
  events.push_back({event, owner_->region_.load(std::memory_order_relaxed)});
}

Recorder::Recorder(std::size_t max_spans_per_track) : capacity_(max_spans_per_track) {
  for (auto& sink : sinks_) sink.init(this, capacity_);
}

int Recorder::begin_region(Region region) {
  regions_.push_back(std::move(region));
  const int index = static_cast<int>(regions_.size()) - 1;
  region_.store(index, std::memory_order_relaxed);
  return index;
}

void Recorder::set_recording(bool on) {
  for (auto& sink : sinks_) sink.arm(on);
}

RankTrace Recorder::collect(int rank) const {
  RankTrace out;
  out.rank = rank;
  out.regions = regions_;
  out.capacity = capacity_;
  for (int track = 0; track < kTracks; ++track) {
    const Sink& sink = sinks_[track];
    out.dropped += sink.dropped;
    for (const Recorded& r : sink.events) {
      Span s;
      s.name = r.event.name;
      s.category = r.event.category;
      s.track = track;
      s.region = r.region;
      s.begin_s = r.event.begin_s;
      s.end_s = r.event.end_s;
      for (const coll::TraceArg& a : r.event.args)
        if (a.key) s.args.emplace_back(a.key, a.value);
      out.spans.push_back(std::move(s));
    }
  }
  return out;
}

IterationFn record_last_iteration(Recorder* recorder, const TimingPlan& plan, IterationFn inner) {
  if (!recorder) return inner;
  const int last = plan.iters - 1;
  return [recorder, last, inner = std::move(inner)](int iteration) {
    if (inner) inner(iteration);
    recorder->set_recording(iteration == last);
  };
}

}  // namespace shardroof::trace
