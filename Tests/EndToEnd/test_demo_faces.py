"""The demo reads as a call (#28), checked on the real binary's screen in a 120x40 tmux: every participant's tile
shows a face (a head lighter or darker than its background, eyes that stand out from the skin, a name band with light
letters), the speaker's mouth moves while their ◆ is on and a silent participant's mouth does not move at all, and
the speaker mark never shares a label with "muted" while Grace mutes herself mid-sentence (the demo's script:
Sources/ConfTUI/Demo/SyntheticParticipants.swift).

Tiles are read out of `capture-pane -e` in truecolor (testsupport.ansi_screen): each cell's two half-block pixels.
The picture's place in its tile follows the renderer's letterbox (Sources/Renderer/Letterbox.swift) and the face's
parts their fractions of the frame (FaceSource.mouthBox and eyeBox, Sources/Engine/Media/Face/FaceLayout.swift)."""

import time

import numpy as np

from testsupport.ansi_screen import DEFAULT_BG, DEFAULT_FG, half_block_pixels, parse
from testsupport.binaries import conftui_bin
from testsupport.evidence import evidence_on_failure
from testsupport.tmux import TmuxSession

WIDTH, HEIGHT = 120, 40
NAMES = ("Ada", "Grace", "Linus")
SOURCE = (320, 240)                      # the demo's frames
MOUTH = (0.4, 0.4, 0.2, 0.15)            # FaceSource.mouthBox
EYES = (0.375, 0.225, 0.25, 0.1)         # FaceSource.eyeBox
NAME_BAND = (0.0, 2 / 3, 1.0, 1 / 3)     # FaceSource.nameBand
MOVED = 6.0       # mean absolute difference (0-255, over the mouth box's pixels and channels) that counts as a move
STILL = 1.5       # the most a silent mouth may differ between captures (the codec's noise on a still picture)
CAPTURE_SECONDS = 27.0                   # more than two rounds of turns: Grace mutes mid-turn every other round


def capture(session):
    return parse(session._tmux("capture-pane", "-p", "-e", "-N").stdout, WIDTH, HEIGHT)


def letterbox(sw, sh, aw, ah):
    """Sources/Renderer/Letterbox.swift: (x, y, w, h) of a sw x sh picture in an aw x ah pixel area."""
    w, h = aw, (aw * sh * 2 + sw) // (2 * sw)
    if h > ah:
        h = ah
        w = min(aw, (ah * sw * 2 + sh) // (2 * sh))
    return (aw - w) // 2, (ah - h) // 2, max(1, w), max(1, h)


def tile(screen, name):
    """(label text, picture pixels) of `name`'s tile, or None when its label is not on the screen."""
    at = None
    for mark in ("◆ ", "  "):
        at = screen.find(mark + name + " ·") or screen.find(mark + name + " (you) ·")
        if at:
            break
    if not at:
        return None
    x0, label_row = at
    label = screen.line(label_row)[x0:x0 + WIDTH // 3].split("  ·")[0].rstrip(" ·")
    # The tile's cells: its third of the columns, the rows above its label up to the row of labels before it.
    top = 0
    for y in range(label_row - 1, -1, -1):
        line = screen.line(y)
        if "(you)" in line or any(f"{n} ·" in line for n in NAMES):
            top = y + 1
            break
    cols = range(x0, min(WIDTH, x0 + WIDTH // 3 - 1))
    painted = [(x, y) for y in range(top, label_row) for x in cols
               if screen.cell(x, y).bg != DEFAULT_BG or screen.cell(x, y).fg != DEFAULT_FG]
    if not painted:
        return label, None
    left, right = min(x for x, _ in painted), max(x for x, _ in painted)
    first, last = min(y for _, y in painted), max(y for _, y in painted)
    pixels = half_block_pixels(screen, left, first, right - left + 1, last - first + 1, strict=False)
    bx, by, bw, bh = letterbox(*SOURCE, pixels.shape[1], pixels.shape[0])
    return label, pixels[by:by + bh, bx:bx + bw].astype(np.int16)


def crop(picture, box):
    h, w = picture.shape[:2]
    x, y, bw, bh = box
    return picture[int(y * h):max(int(y * h) + 1, round((y + bh) * h)), int(x * w):max(int(x * w) + 1, round((x + bw) * w))]


def looks_like_a_face(picture):
    """A head that stands out from the background, eyes unlike the skin around them, light letters on a dark band."""
    h, w = picture.shape[:2]
    corner = picture[: max(1, h // 10), : max(1, w // 10)].reshape(-1, 3).mean(axis=0)
    head = crop(picture, (0.42, 0.3, 0.16, 0.08)).reshape(-1, 3).mean(axis=0)   # the cheeks and nose, between eyes and mouth
    eyes = crop(picture, EYES).reshape(-1, 3).sum(axis=1)
    band = crop(picture, NAME_BAND).reshape(-1, 3).sum(axis=1)
    reasons = []
    if np.abs(head - corner).sum() < 60:
        reasons.append(f"head {head.round()} like the background {corner.round()}")
    # Eyes stand out from the skin around them: dark pupils on a light face, light whites on a dark one.
    if np.abs(eyes - head.sum()).max() < 60:
        reasons.append(f"no eye pixel unlike the skin (eyes {eyes.min()}..{eyes.max()}, skin {head.sum():.0f})")
    if (band > 600).mean() < 0.05 or (band < 300).mean() < 0.3:
        reasons.append(f"no light letters on a dark band ({(band > 600).mean():.2f} light, {(band < 300).mean():.2f} dark)")
    return reasons


def test_the_demo_shows_faces_whose_mouths_move_with_their_speech_and_never_marks_a_muted_speaker():
    session = TmuxSession(f"{conftui_bin()} demo --peers 3 --name Sam", WIDTH, HEIGHT,
                          env={"TERM": "xterm-256color", "COLORTERM": "truecolor"})
    try:
        with evidence_on_failure(session):
            session.wait_for(lambda sc: all(f"{n} · connected" in sc for n in NAMES), timeout=25,
                             what="Ada, Grace and Linus connected")
            time.sleep(2)   # the first keyframes drawn
            shots = []      # per capture: {name: (label, picture)}
            end = time.monotonic() + CAPTURE_SECONDS
            while time.monotonic() < end:
                screen = capture(session)
                shots.append({n: tile(screen, n) for n in NAMES + ("Sam",)})
                time.sleep(0.1)
            check(shots)
            session.send("q")
            assert session.wait_exit(15) == 0
    finally:
        session.close()


def check(shots):
    seen = {n: [s[n] for s in shots if s[n] and s[n][1] is not None and s[n][1].size] for n in NAMES + ("Sam",)}
    # Your own tile too (a still face: it once kept the holes curses left in it, see RoomView).
    for name in NAMES + ("Sam",):
        assert len(seen[name]) > len(shots) * 0.9, f"{name}'s tile missing from {len(shots) - len(seen[name])} captures"
        # Any of the last captures (the latest may catch a blink).
        problems = [looks_like_a_face(picture) for _, picture in seen[name][-5:]]
        assert not all(problems), f"{name}'s tile does not show a face: {problems[-1]}"
    # ◆ and "muted" never on one label; Grace was seen speaking and seen muted, so the rule was put to the test.
    labels = [s[n][0] for s in shots for n in NAMES if s[n]]
    both = [l for l in labels if "◆" in l and "muted" in l]
    assert not both, f"the speaker mark on a muted participant: {both[:3]}"
    assert any(l.startswith("◆ Grace") for l in labels), "Grace never spoke during the captures"
    assert any(l.startswith("  Grace · muted") for l in labels), "Grace never muted during the captures"
    for name in NAMES:
        frames = [s[name] for s in shots]
        speaking = [bool(f and f[0].startswith("◆")) for f in frames]
        muted = [bool(f and "muted" in f[0]) for f in frames]
        moves_speaking, moves_silent = [], []
        for i in range(1, len(frames)):
            a, b = frames[i - 1], frames[i]
            if not (a and b and a[1] is not None and b[1] is not None and a[1].shape == b[1].shape):
                continue
            moved = float(np.abs(crop(a[1], MOUTH) - crop(b[1], MOUTH)).mean())
            if speaking[i - 1] and speaking[i]:
                moves_speaking.append(moved)
            # Silent: no mark for half a second either side (the mark follows the audio, the mouth the video) and not
            # muted (a muted Grace still talks: her mouth moves, the room hears nothing).
            near = range(max(0, i - 4), min(len(frames), i + 4))
            if not any(speaking[j] or muted[j] for j in near):
                moves_silent.append(moved)
        assert len(moves_speaking) >= 10, f"{name} was marked speaking in too few captures ({len(moves_speaking)} pairs)"
        assert len(moves_silent) >= 10, f"{name} was silent in too few captures ({len(moves_silent)} pairs)"
        moving = sum(m > MOVED for m in moves_speaking) / len(moves_speaking)
        assert moving >= 0.3, (f"{name}'s mouth moved in {moving:.0%} of the captures while speaking "
                               f"(differences {sorted(moves_speaking)[-10:]})")
        assert max(moves_silent) <= STILL, f"{name}'s mouth moved while silent: {sorted(moves_silent)[-5:]}"
        print(f"{name}: mouth moved in {moving:.0%} of {len(moves_speaking)} speaking pairs; "
              f"largest silent difference {max(moves_silent):.2f} over {len(moves_silent)} pairs")
