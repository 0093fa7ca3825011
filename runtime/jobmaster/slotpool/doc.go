// Package slotpool is the JobMaster's side of slot allocation: it collects
// the slots the scheduler asks for, declares them to the ResourceManager as
// resource requirements (step m6), accepts the slots TaskExecutors offer
// (step m8) and hands them to the waiting requests.
//
// It mirrors Flink's declarative slot pool: DeclarativeSlotPoolBridge in
// front of DefaultDeclarativeSlotPool (org.apache.flink.runtime.jobmaster.slotpool),
// the pair the Default scheduler uses since Flink 1.12 (the older
// SlotPoolImpl, which requested slots one by one, was removed in 1.14).
//
// # Declarative resource management
//
// The JobMaster never asks the ResourceManager for "a slot". It declares
// what the job needs in total ("4 slots of any profile") and declares again
// whenever that changes. The ResourceManager's SlotManager compares the
// declarations with the free slots and asks TaskExecutors to allocate slots
// for the job; the TaskExecutors then offer them straight to the JobMaster.
// A slot therefore travels RM → TaskExecutor → JobMaster, never through the
// ResourceManager's hands.
//
// The pool runs on the JobMaster's main thread and does no I/O itself: it
// calls a declare function the JobMaster gives it, once per mailbox turn at
// most, so the many requests of one scheduling step become one declaration
// (Flink batches them with slot.request.max-interval, 20 ms).
//
// # Offers
//
// OfferSlots accepts an offered slot when a request is waiting for one of a
// matching profile, and gives it to the oldest such request. An offer
// nobody needs is rejected, and the TaskExecutor frees it.
//
// # Requests that are not fulfilled
//
// A request waits until a slot comes, the scheduler withdraws it, or it
// fails: when the ResourceManager reports that the job's requirements
// cannot be met (NotifyNotEnoughResourcesAvailable, "Could not acquire the
// minimum required resources."), or when the requests of its scheduling
// round stay unfulfillable for slot.request.timeout (5 min). The latter is
// the PhysicalSlotRequestBulkChecker's (bulkchecker.go, Flink's
// PhysicalSlotRequestBulkCheckerImpl): the scheduler hands it each round's
// requests as a PhysicalSlotRequestBulk, and it checks them on the
// JobMaster's main thread against the slots the pool holds (AllSlotInfos).
// A timed-out bulk is cancelled with "NoResourceAvailableException: Slot
// request bulk is not fulfillable! Could not allocate the required slot
// within slot request timeout".
//
// Differs from Flink: there is one pool type instead of the bridge and the
// declarative pool; requests have no individual timeouts (streaming jobs in
// Flink have none either: the bulk checker is their timeout); idle slots
// are kept until the job ends.
package slotpool
