import CGSNetlink
