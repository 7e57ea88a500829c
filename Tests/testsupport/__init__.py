"""What the Python tests (Tests/Interop, Tests/EndToEnd) and the Swift interop tests share: the signaling server
launcher (`serve`), the one aiortc peer (`aiortc_peer`, in a process of its own through `aiortc_process`, over plain
SDP for the Swift tests through `aiortc_sdp_peer`), `conftui bot` as a process (`bot`), headless Chromium (`chromium`,
`pages`, `chromium_sdp_peer`), tmux (`tmux`), the test card's reader (`card_reader`), tones (`tones`), child processes
(`processes`) and everyone's evidence on failure (`evidence`).

pytest finds it through Tests/pytest.ini (`pythonpath = .`); a program run from here puts Tests/ on its path first.
"""
