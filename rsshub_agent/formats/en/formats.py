# Django's English formats, naming the zone: "Dec. 1, 2026, 10:12 a.m. CST".
TIME_FORMAT = "P T"
DATETIME_FORMAT = "N j, Y, P T"
SHORT_DATETIME_FORMAT = "m/d/Y P T"
