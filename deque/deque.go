package deque

// Deque is the single-item contract that every deque in this package
// meets: one owner goroutine calls TryPush and Pop at the bottom end, last
// in first out; any number of goroutines call Steal at the top end, first
// in first out, unless a variant's documentation says otherwise.
//
// Items are pointers and nil means "no item": TryPush panics on nil, Pop
// returns nil when it finds nothing, Steal returns (nil, Empty) or
// (nil, Retry).
//
// The variants differ in what they promise beyond that, and each says so in
// its documentation: whether Push can fail (ABP and BWoS are bounded and
// report full; ChaseLev, Locked and Bulk grow), whether Steal can report
// Empty while items remain (BWoS keeps the owner's current block out of
// thieves' reach), whether Len may be called by goroutines other than the
// owner (not for BWoS), and which extra operations they offer (Bulk's
// batches).
type Deque[T any] interface {
	// TryPush adds v at the bottom and reports true, or reports false and
	// changes nothing if a bounded deque is full. Owner only.
	TryPush(v *T) bool
	// Pop removes and returns the newest item, or nil. Owner only.
	Pop() *T
	// Steal removes and returns the oldest item it may take, with Success;
	// or (nil, Empty) if it saw none; or (nil, Retry) if it lost a race.
	Steal() (*T, StealResult)
	// Len returns the number of items: exact when nobody else is using
	// the deque, otherwise a snapshot that may be stale on return.
	Len() int
}

// Compile-time checks that every variant is a Deque.
var (
	_ Deque[int] = (*ChaseLev[int])(nil)
	_ Deque[int] = (*ABP[int])(nil)
	_ Deque[int] = (*BWoS[int])(nil)
	_ Deque[int] = (*Locked[int])(nil)
	_ Deque[int] = (*Bulk[int])(nil)
)

// TryPush is Push for the Deque interface: ChaseLev grows instead of
// filling up, so it always reports true. Only the owner may call it, and it
// panics on nil like Push.
func (d *ChaseLev[T]) TryPush(v *T) bool {
	d.Push(v)
	return true
}
