import Engine
import Foundation

/// The Swift SCTP core's CPU cost (`make bench BENCH=sctp-core`; Tests/Bench/sctp_core_bench.py runs this beside
/// usrsctp, Tests/Bench/usrsctp_pair.c, and prints the comparison). Two `DataChannels` in one process, joined back
/// to back by a lossless in-memory link (a FIFO of packets, no DTLS, no sockets): A opens a channel and sends,
/// B receives. The link is instant; a virtual clock advances only when neither end can move (to the next timer), so
/// waiting costs no CPU. A keeps at most 1 MiB queued on the channel (usrsctp's side has a 1 MiB send buffer).
/// Measured: the process's CPU time (getrusage; one thread) from the first message to the last one received.
/// Prints one `RESULT {json}` line per workload; `CONFTUI_SCTP_WORKLOADS=large,small` picks them.
let sctpCoreSuite = BenchSuite(name: "sctp-core", summary: "CPU of the Swift SCTP core moving messages between two in-process associations") {
    let wanted = Set((ProcessInfo.processInfo.environment["CONFTUI_SCTP_WORKLOADS"] ?? "large,small").split(separator: ",").map(String.init))
    for (name, size, count) in [("large", 65_536, 3_200), ("small", 1_024, 100_000)] where wanted.contains(name) {
        let r = try SctpPairRun.run(messageSize: size, count: count)
        print("RESULT {\"impl\":\"swift\",\"workload\":\"\(name)\",\"message_size\":\(size),\"messages\":\(r.messages),"
              + "\"bytes\":\(r.bytes),\"cpu_s\":\(String(format: "%.4f", r.cpuSeconds)),\"wall_s\":\(String(format: "%.4f", r.wallSeconds)),"
              + "\"largest_packet\":\(r.largestPacket),\"packets_ab\":\(r.packets.0),\"packets_ba\":\(r.packets.1),"
              + "\"timer_jumps\":\(r.timerJumps)}")
    }
}

enum SctpPairRun {
    struct Result {
        var messages = 0
        var bytes = 0
        var cpuSeconds = 0.0
        var wallSeconds = 0.0
        var largestPacket = 0
        var packets = (0, 0)
        var timerJumps = 0
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    static let queueLimit = 1 << 20

    static func run(messageSize: Int, count: Int) throws -> Result {
        let a = DataChannels(configuration: DataChannels.Configuration(isDtlsClient: true))
        let b = DataChannels(configuration: DataChannels.Configuration(isDtlsClient: false))
        var now = TransportTime(nanoseconds: 1_000_000_000)
        // The link: packets in order, each tagged with its destination (true: to B).
        var link: [(toB: Bool, bytes: [UInt8])] = []
        var head = 0
        var deadlines: (a: TransportTime?, b: TransportTime?) = (nil, nil)
        var result = Result()
        var counting = false
        var received = 0
        var receivedBytes = 0
        var warnings: [String] = []

        func apply(_ out: DataChannels.Output, fromA: Bool) {
            for packet in out.transmits {
                link.append((fromA, packet))
                if counting {
                    result.largestPacket = max(result.largestPacket, packet.count)
                    if fromA { result.packets.0 += 1 } else { result.packets.1 += 1 }
                }
            }
            if fromA { deadlines.a = out.deadline } else { deadlines.b = out.deadline }
            for event in out.events {
                switch event {
                case .message(_, .binary(let bytes)) where !fromA:
                    received += 1
                    receivedBytes += bytes.count
                case .warning(let why): warnings.append(why)
                default: break
                }
            }
        }

        /// Hands every queued packet to its end (answers queue behind them); true when there was any.
        func pump() -> Bool {
            guard head < link.count else { return false }
            while head < link.count {
                let (toB, bytes) = link[head]
                head += 1
                if toB { apply(b.receive(packet: bytes, now: now), fromA: false) } else { apply(a.receive(packet: bytes, now: now), fromA: true) }
                if head > 4096 && head * 2 > link.count {
                    link.removeFirst(head)
                    head = 0
                }
            }
            return true
        }

        /// Neither end can move: the clock jumps to the next timer.
        func jump() throws {
            guard let next = [deadlines.a, deadlines.b].compactMap({ $0 }).min() else { throw Failure(description: "stalled with no timer") }
            now = max(now, next)
            if let d = deadlines.a, d <= now { deadlines.a = nil; apply(a.handleTimeout(now: now), fromA: true) }
            if let d = deadlines.b, d <= now { deadlines.b = nil; apply(b.handleTimeout(now: now), fromA: false) }
        }

        apply(a.start(now: now), fromA: true)
        apply(b.start(now: now), fromA: false)
        var rounds = 0
        while !(a.isConnected && b.isConnected) {
            if !pump() { try jump() }
            rounds += 1
            if rounds > 10_000 { throw Failure(description: "no association") }
        }
        let (channel, opened) = try a.open(label: "bench", now: now)
        apply(opened, fromA: true)
        _ = pump()

        let message = (0..<messageSize).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        counting = true
        let cpu0 = processCPUSeconds()
        let wall0 = ProcessInfo.processInfo.systemUptime
        var sent = 0
        while received < count {
            var progress = false
            while sent < count && a.bufferedAmount(channel) < queueLimit {
                apply(try a.send(.binary(message), on: channel, now: now), fromA: true)
                sent += 1
                progress = true
            }
            if pump() { progress = true }
            now = now + .microseconds(1)
            if !progress {
                try jump()
                result.timerJumps += 1
            }
        }
        result.cpuSeconds = processCPUSeconds() - cpu0
        result.wallSeconds = ProcessInfo.processInfo.systemUptime - wall0
        result.messages = received
        result.bytes = receivedBytes
        guard receivedBytes == messageSize * count else {
            throw Failure(description: "received \(receivedBytes) bytes, expected \(messageSize * count)")
        }
        if !warnings.isEmpty { print("warnings: \(warnings.prefix(5))") }
        return result
    }
}
