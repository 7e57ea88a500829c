/// The browser client page that `conftui serve` returns for `GET /`.
///
/// Written as real files in `BrowserPage/` (page.html, page.css, page.js) so that they can be edited and
/// checked as what they are (`make test` runs `node --check` on the script); the EmbedBrowserPage build
/// plugin inlines the stylesheet and script into the HTML and compiles the result in, so the single
/// `conftui` binary serves one self-contained document with no files beside it.
///
/// A SkyRTC mesh client that loads nothing from elsewhere: it joins the room named by the URL fragment over
/// `ws(s)://<same host:port>/`, offers to the members already there, answers newcomers, and shows everyone's
/// video three tiles per row, each labelled with the peer's display name (the `?name=` of its page or
/// `conftui join --name`, carried by conftui's display-name extension) or, without one, a short socketId.
/// `window.conftui.state()` and `window.conftui.log` are the hooks the interop tests read (documented at the
/// top of page.js).
public enum BrowserPage {
    public static let html: String = browserPageHTML
}
