/// The agent's own deterministic generator (SplitMix64), seeded from the config.
typealias IceRandom = SplitMixRandom
