"""`make bench`: Sleuth's report card on the offline web of `../shared/bench`."""
