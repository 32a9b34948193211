/// When a box may install a bundle heard on the venue's update channel, and when it may reboot
/// into it (docs/updates.md "Multicast delivery"). Both only inside the operator's UTC windows,
/// and only while no more fans are watching than allowed. The reboot also waits for the box's own
/// offset into the window, a hash of its identity spread over `staggerSeconds`. Every box hears
/// the same transmission at the same moment, so without the spread a venue's access points would
/// all go dark together. Pure: time, viewers and the box's key are passed in.
public struct RolloutPolicy: Sendable, Equatable {
    public typealias Window = CachePolicy.HourWindow

    /// UTC windows (`HH:MM-HH:MM`, may span midnight); empty: any time.
    public var windows: [Window]
    /// Fans watching (open fan connections) above which the box neither installs nor reboots.
    public var maxViewers: Int
    /// Reboots spread over this many seconds from the window's start (0: at once).
    public var staggerSeconds: Int

    public init(windows: [Window] = [], maxViewers: Int = 0, staggerSeconds: Int = 1800) {
        self.windows = windows
        self.maxViewers = maxViewers
        self.staggerSeconds = staggerSeconds
    }

    public enum Step: Sendable, Equatable {
        /// Write the bundle into the other slot now (the box keeps serving meanwhile).
        case install
        /// Reboot into the installed slot now.
        case reboot
        case wait(Reason)
    }

    public enum Reason: Sendable, Equatable, CustomStringConvertible {
        case outsideWindows
        case viewers(Int)
        /// The box's turn in the window starts at this Unix second.
        case turn(atUnixSeconds: Int64)

        public var description: String {
            switch self {
            case .outsideWindows: "outside the update windows"
            case .viewers(let count): "\(count) fans watching"
            case .turn(let at): "this box's turn comes at \(at) (staggered reboots)"
            }
        }
    }

    /// What to do at `nowUnixSeconds` with `viewers` watching, the bundle already `installed` or
    /// not; `boxKey` places this box in the stagger (the same box always gets the same turn).
    public func step(nowUnixSeconds now: Int64, viewers: Int, installed: Bool, boxKey: UInt64) -> Step {
        let secondOfDay = Int(((now % 86_400) + 86_400) % 86_400)
        let window = windows.first { $0.contains(minuteOfDay: secondOfDay / 60) }
        guard windows.isEmpty || window != nil else { return .wait(.outsideWindows) }
        guard viewers <= maxViewers else { return .wait(.viewers(viewers)) }
        guard installed else { return .install }
        guard staggerSeconds > 0 else { return .reboot }
        // The window's start (today's, or yesterday's for one spanning midnight), and the turn
        // inside it: never later than a minute before its end, so every box gets a turn.
        let start: Int64
        var length = staggerSeconds
        if let window {
            var startSecond = window.startMinute * 60
            if startSecond > secondOfDay { startSecond -= 86_400 }
            start = now - Int64(secondOfDay - startSecond)
            let minutes = (window.endMinute - window.startMinute + 1440) % 1440
            length = min(staggerSeconds, max(1, minutes * 60 - 60))
        } else {
            // Any time: the turn counts from the hour the bundle is installed in.
            start = now - now % 3600
            length = min(staggerSeconds, 3540)
        }
        let turn = start + Int64(boxKey % UInt64(length))
        return now >= turn ? .reboot : .wait(.turn(atUnixSeconds: turn))
    }
}
