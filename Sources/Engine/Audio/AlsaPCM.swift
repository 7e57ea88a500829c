import CALSA
import EngineTransport

/// One ALSA PCM, mono S16 at 48 kHz, for capture or playback. ALSA's own error printer is
/// silenced first: its "ALSA lib ... cannot find card" lines would land on the curses screen.
/// Owned by the audio thread that reads or writes it (not Sendable).
public final class AlsaPCM {
    public enum Direction: Sendable { case capture, playback }

    public let device: String
    public let direction: Direction
    private let pcm: OpaquePointer

    /// Opens `device` (`default`, `null`, `hw:1,0`, `plughw:...`). Throws when ALSA cannot open it,
    /// for example on a machine with no sound card.
    public init(device: String, direction: Direction, latencyMicroseconds: UInt32 = 60_000) throws(EngineError) {
        calsa_silence_errors()
        var handle: OpaquePointer?
        let stream = direction == .capture ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK
        let rc = snd_pcm_open(&handle, device, stream, 0)
        guard rc == 0, let h = handle else {
            throw .library(name: "alsa", call: "snd_pcm_open(\(device))", code: rc)
        }
        // soft_resample=1 lets ALSA's plug layer convert when the hardware has no 48 kHz mono.
        let setRC = snd_pcm_set_params(h, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, 48_000, 1, latencyMicroseconds)
        guard setRC == 0 else {
            snd_pcm_close(h)
            throw .library(name: "alsa", call: "snd_pcm_set_params(\(device))", code: setRC)
        }
        pcm = h
        self.device = device
        self.direction = direction
    }

    deinit { snd_pcm_close(pcm) }

    /// Plays one frame; blocks while the device buffer is full (that is the playback clock).
    /// An underrun (-EPIPE) is recovered and the frame written again once.
    public func write(_ frame: AudioFrame) throws(EngineError) {
        var attempt = 0
        while true {
            let n = frame.samples.withUnsafeBufferPointer { buf in
                snd_pcm_writei(pcm, buf.baseAddress, snd_pcm_uframes_t(AudioFrame.samplesPerFrame))
            }
            if n >= 0 { return }
            attempt += 1
            let rc = snd_pcm_recover(pcm, Int32(n), 1)
            if rc < 0 || attempt > 1 { throw .library(name: "alsa", call: "snd_pcm_writei", code: Int32(n)) }
        }
    }

    /// Captures one frame; blocks until 20 ms of audio is there (that is the capture clock).
    public func read() throws(EngineError) -> AudioFrame {
        var samples = [Int16](repeating: 0, count: AudioFrame.samplesPerFrame)
        var filled = 0
        var attempts = 0
        while filled < samples.count {
            let n = samples.withUnsafeMutableBufferPointer { buf in
                snd_pcm_readi(pcm, buf.baseAddress! + filled, snd_pcm_uframes_t(buf.count - filled))
            }
            if n > 0 { filled += Int(n); continue }
            attempts += 1
            let rc = snd_pcm_recover(pcm, Int32(n), 1)
            if rc < 0 || attempts > 3 { throw .library(name: "alsa", call: "snd_pcm_readi", code: Int32(n)) }
        }
        return AudioFrame(samples: samples)
    }
}
