// Installed by test_room_five_party.py into the served page (CDP Runtime.evaluate) once it has joined: measures
// what arrives from each remote peer, beyond getStats. Reads the page's own top-level `session` (a script-scope
// `let`, visible to evaluated code): per peer its received MediaStream and its tile's <video>.
//   window.roomProbe.sample(withPictures) -> {contextState, peers: {<socketId>: {audio: {rms, peakHz, peakDb} | null,
//       video: {width, height, luma: base64 of width*height luma bytes}
//       | null}}}
// Audio: one AnalyserNode per remote audio track (fftSize 32768: 0.68 s at 48 kHz, 1.5 Hz bins); rms over the
// newest 0.25 s. Video: the <video> drawn on a canvas at its own size (a remote WebRTC picture is not tainted).
(() => {
  if (window.roomProbe) return;
  const context = new AudioContext();
  const analysers = new Map();
  const canvas = document.createElement("canvas");
  const g = canvas.getContext("2d", { willReadFrequently: true });

  function analyserFor(id, peer) {
    const track = peer.stream.getAudioTracks()[0];
    if (!track) return null;
    let entry = analysers.get(id);
    if (entry && entry.track === track) return entry;
    const source = context.createMediaStreamSource(new MediaStream([track]));
    const analyser = context.createAnalyser();
    analyser.fftSize = 32768;
    analyser.smoothingTimeConstant = 0;
    source.connect(analyser);
    entry = { track, source, analyser };
    analysers.set(id, entry);
    return entry;
  }

  function audio(entry) {
    const analyser = entry.analyser;
    const samples = new Float32Array(analyser.fftSize);
    analyser.getFloatTimeDomainData(samples);
    const recent = samples.subarray(samples.length - Math.round(context.sampleRate * 0.25));
    let sum = 0;
    for (const x of recent) sum += x * x;
    const spectrum = new Float32Array(analyser.frequencyBinCount);
    analyser.getFloatFrequencyData(spectrum);
    let best = 3;
    for (let i = 4; i < spectrum.length - 1; i++) if (spectrum[i] > spectrum[best]) best = i;
    // Parabolic interpolation of the peak over its neighbours (dB), for a frequency finer than one bin.
    const [a, b, c] = [spectrum[best - 1], spectrum[best], spectrum[best + 1]];
    const offset = (a - 2 * b + c) !== 0 ? 0.5 * (a - c) / (a - 2 * b + c) : 0;
    return { rms: Math.sqrt(sum / recent.length), peakHz: (best + offset) * context.sampleRate / analyser.fftSize,
             peakDb: b };
  }

  function picture(video) {
    const width = video.videoWidth, height = video.videoHeight;
    if (!width || !height || video.readyState < 2) return null;
    canvas.width = width;
    canvas.height = height;
    g.drawImage(video, 0, 0, width, height);
    const rgba = g.getImageData(0, 0, width, height).data;
    const luma = new Uint8Array(width * height);
    for (let i = 0, j = 0; j < luma.length; i += 4, j++) {
      luma[j] = Math.round(0.299 * rgba[i] + 0.587 * rgba[i + 1] + 0.114 * rgba[i + 2]);
    }
    let text = "";
    for (let i = 0; i < luma.length; i += 8192) text += String.fromCharCode.apply(null, luma.subarray(i, i + 8192));
    return { width, height, luma: btoa(text) };
  }

  window.roomProbe = {
    context,
    sample(withPictures) {
      if (context.state === "suspended") context.resume();
      const out = { contextState: context.state, peers: {} };
      if (!session) return out;
      for (const [id, peer] of session.peers) {
        const entry = analyserFor(id, peer);
        out.peers[id] = { audio: entry ? audio(entry) : null,
                          video: withPictures ? picture(peer.tile.video) : null };
      }
      return out;
    },
  };
})();
