import Engine
import EngineTestSupport
import Foundation

/// A whole room of `CallCore`s on the virtual clock (`CallRoomHarness`, as `CallCoreRoomTests` runs it): four members
/// join a mesh one by one, send media both ways, one leaves, one loses its signaling and comes back. How many seconds
/// of call one wall-clock second simulates is what keeps room-level tests fast; a real call's baseline is 1.
let roomsSuite = BenchSuite(name: "rooms", summary: "seconds of a four-member call simulated per wall-clock second") {
    print("link                virtual s   wall s   × real time   datagrams")
    for (label, loss) in [("clean, 15 ms", 0.0), ("5 % loss, 15 ms", 0.05)] {
        var results: [(virtual: Double, wall: Double, sent: Int)] = []
        for seed in UInt64(1)...3 {
            let started = MonotonicClock.now()
            let room = CallRoomHarness(conditions: LinkConditions(delay: .milliseconds(15), loss: loss), seed: seed)
            let names = ["ann", "bob", "cat", "dan"]
            for name in names { room.add(name) }
            for name in names {
                room.join(name)
                room.run(for: .milliseconds(100))
            }
            room.run(for: .seconds(5)) { room.fullyConnected }
            room.run(for: .seconds(2))
            room.leave("dan")
            room.run(for: .seconds(1))
            room.loseSignaling("cat")
            room.run(for: .milliseconds(300))
            room.join("cat")
            room.run(for: .seconds(5)) { room.fullyConnected }
            room.run(for: .seconds(2))
            results.append((room.now.seconds, MonotonicClock.now() - started, room.datagramsSent))
        }
        let median = results.sorted { $0.wall < $1.wall }[1]
        print(label.padding(toLength: 18, withPad: " ", startingAt: 0)
              + String(format: "  %9.1f  %7.2f  %12.1f  %10d", median.virtual, median.wall, median.virtual / median.wall, median.sent))
    }
    print("(the median of three seeds by wall time)")
}
