import GrandstandCore
import HTTPServer

/// The fan listener's lists of what else it serves (`/records.json`, `/timelines.json`,
/// `/items.json`): JSON revalidated on every load, since lists change as recordings end and
/// items arrive (docs/fan-app.md).
public enum FanListing {
    public static func response(_ document: JSONValue) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-cache")],
                     body: Array((document.encoded + "\n").utf8))
    }
}
