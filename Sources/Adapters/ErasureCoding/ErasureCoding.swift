import CGSISAL
