import CGSPcap
