// What a plugin registers (radial/plugin/registration.hpp).
#include "radial/plugin/registration.hpp"

namespace radial {

const char* to_string(Slot slot) {
  switch (slot) {
    case Slot::Basis: return "basis";
    case Slot::Centres: return "centres";
    case Slot::Output: return "output";
    case Slot::WeightPenalty: return "weight-penalty";
    case Slot::KernelPrior: return "kernel-prior";
    case Slot::Refine: return "refine";
  }
  return "unknown";
}

std::optional<Slot> slot_named(const std::string& name) {
  for (const Slot slot : all_slots)
    if (name == to_string(slot)) return slot;
  return std::nullopt;
}

bool slot_required(Slot slot) {
  return slot == Slot::Basis || slot == Slot::Centres || slot == Slot::Output;
}

Registrar::~Registrar() = default;

}  // namespace radial
