import CGSSystemd
