import Synchronization

/// The call's events on their way to one reader (the screen), bounded: a reader that stalls (a suspended terminal)
/// must not make the call grow without limit. Full, it drops the oldest event and counts it: the newest state is what
/// the screen must end up showing. The writer is any of the call's threads; `take()` hands over everything queued.
public final class CallEventQueue: Sendable {
    private let events = Mutex<[CallEvent]>([])
    private let droppedCount = Atomic<Int>(0)
    public let capacity: Int

    public init(capacity: Int = CallLimits.maxQueuedEvents) { self.capacity = max(1, capacity) }

    public func push(_ event: CallEvent) {
        let dropped = events.withLock { q in
            q.append(event)
            guard q.count > capacity else { return false }
            q.removeFirst(q.count - capacity)
            return true
        }
        if dropped { droppedCount.add(1, ordering: .relaxed) }
    }

    /// Everything queued since the last call, oldest first.
    public func take() -> [CallEvent] { events.withLock { q in defer { q = [] }; return q } }

    /// Events dropped because `capacity` were already waiting.
    public var dropped: Int { droppedCount.load(ordering: .relaxed) }
}
