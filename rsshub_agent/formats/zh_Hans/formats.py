# Django's Simplified Chinese formats, naming the zone: "2026年12月1日 10:12 CST".
TIME_FORMAT = "H:i T"
DATETIME_FORMAT = "Y年n月j日 H:i T"
SHORT_DATETIME_FORMAT = "Y年n月j日 H:i T"
