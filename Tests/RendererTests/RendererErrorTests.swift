import Testing
@testable import Renderer

@Test func invalidFrameErrorSaysWhy() {
    #expect(RendererError.invalidFrame("stride 2 < width 4").description == "invalid frame: stride 2 < width 4")
}
