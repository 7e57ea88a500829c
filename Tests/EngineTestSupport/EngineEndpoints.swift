import Engine

// Engine's sans-IO cores as `PairHarness` endpoints. Their outputs already have the shape `SansIOOutput` asks for.

extension IceOutput: SansIOOutput {}
extension TransportSession.Output: SansIOOutput {}
extension PeerConnection.Output: SansIOOutput {}

extension IceAgent: SansIOEndpoint {
    public func receive(_ datagram: Transmit, now: TransportTime) -> IceOutput {
        handle(.datagram(from: datagram.from, to: datagram.to, bytes: datagram.bytes), now: now)
    }

    public func timeout(now: TransportTime) -> IceOutput { handle(.timeout, now: now) }
}

extension TransportSession: SansIOEndpoint {
    public func receive(_ datagram: Transmit, now: TransportTime) -> Output {
        handle(.datagram(from: datagram.from, to: datagram.to, bytes: datagram.bytes), now: now)
    }

    public func timeout(now: TransportTime) -> Output { handle(.timeout, now: now) }
}

extension PeerConnection: SansIOEndpoint {
    public func receive(_ datagram: Transmit, now: TransportTime) -> Output {
        handle(.datagram(from: datagram.from, to: datagram.to, bytes: datagram.bytes), now: now)
    }

    public func timeout(now: TransportTime) -> Output { handle(.timeout, now: now) }
}
