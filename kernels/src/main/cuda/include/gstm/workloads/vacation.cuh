/// @file vacation.cuh
/// @brief The vacation workload of the JPDC PR-STM paper: customers book and cancel hotel rooms.
///        io.gstm.core.workload.vacation.VacationWorkload is the JVM twin; keep the two in step.
#pragma once
#include <cstdint>

#include "gstm/semantic.cuh"

namespace gstm::vacation {

enum Type : uint32_t { kBook = 0, kCancel = 1 };

/// Parameter slots of the TxTable: {roomsRegion, customersRegion, stride, roomTypes}.
enum Param : int { kRoomsRegion = 0, kCustomersRegion = 1, kStride = 2, kRoomTypes = 3 };

/// Vacation's bodies over a generic table for the semantic kernels. Column 0 is the customer,
/// column 1 the room type (BOOK; unused by CANCEL). Room type r's free count is word r * stride
/// of the rooms region; a customer's record is the booked room type + 1, or 0.
///
/// BOOK: a customer who already holds a booking makes it a read-only no-op that returns the
/// record; else no free room is a semantic conflict (sold out), else free - 1 and the record
/// becomes roomType + 1. CANCEL: no booking (or a record naming no room type) is a semantic
/// conflict, else free + 1 for the booked type and the record becomes 0. At most two locks, so
/// there are no set loops here; the host validated the columns, and a room type read from the
/// store is bounded by roomTypes before it is used as an index.
template <int CAPACITY>
struct Ops {
  template <class Tx>
  __device__ __forceinline__ static long long run(Tx& tx, const TxTable& tab, uint32_t t,
                                                  uint32_t type) {
    const uint32_t rooms = static_cast<uint32_t>(tab.params[kRoomsRegion]);
    const uint32_t customers = static_cast<uint32_t>(tab.params[kCustomersRegion]);
    const uint32_t stride = static_cast<uint32_t>(tab.params[kStride]);
    const int32_t room_types = tab.params[kRoomTypes];
    const uint32_t customer = static_cast<uint32_t>(tab.col(0, t));
    const int32_t booked = static_cast<int32_t>(tx.read(customers, customer));
    if (type == kBook) {
      if (booked != 0) return booked;
      const int32_t room_type = tab.col(1, t);
      const uint32_t at = static_cast<uint32_t>(room_type) * stride;
      const int32_t free = static_cast<int32_t>(tx.read(rooms, at));
      if (free <= 0) {
        tx.semantic_conflict();
        return 0;
      }
      tx.write(rooms, at, static_cast<uint32_t>(free - 1));
      tx.write(customers, customer, static_cast<uint32_t>(room_type + 1));
      return 0;
    }
    if (booked <= 0 || booked > room_types) {
      tx.semantic_conflict();
      return 0;
    }
    const uint32_t at = static_cast<uint32_t>(booked - 1) * stride;
    const int32_t free = static_cast<int32_t>(tx.read(rooms, at));
    tx.write(rooms, at, static_cast<uint32_t>(free + 1));
    tx.write(customers, customer, 0u);
    return 0;
  }
};

}  // namespace gstm::vacation
