// The explorer: replaced by the page work.
