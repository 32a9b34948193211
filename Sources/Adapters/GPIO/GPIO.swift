import CGSGpiod
