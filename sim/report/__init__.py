"""Designer reports: analysis.py computes the tables (rates with n and intervals, Holm-corrected
tests), render.py draws the figures and writes report.html, figures/ and tables/."""
