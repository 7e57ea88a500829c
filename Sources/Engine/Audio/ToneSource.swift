/// A sine tone as a microphone: what `conftui bot --tone HZ` sends and the stand-in when a machine
/// has no capture device. The phase carries over between frames, so the tone has no clicks and a
/// receiver measures exactly `frequency`.
public struct ToneSource: Sendable {
    public let frequency: Double
    /// Peak amplitude, 0...1 of full scale.
    public let amplitude: Double
    private var phase = 0.0

    public init(frequency: Double, amplitude: Double = 0.3) {
        self.frequency = frequency
        self.amplitude = min(max(amplitude, 0), 1)
    }

    public mutating func nextFrame() -> AudioFrame {
        let step = 2 * Double.pi * frequency / Double(AudioFrame.sampleRate)
        let peak = amplitude * 32_767
        var samples = [Int16](repeating: 0, count: AudioFrame.samplesPerFrame)
        for i in 0..<samples.count {
            samples[i] = Int16((peak * sin(phase)).rounded())
            phase += step
        }
        phase = phase.truncatingRemainder(dividingBy: 2 * Double.pi)
        return AudioFrame(samples: samples)
    }
}

#if canImport(Glibc)
import Glibc
#endif
