module example.com/lru

go 1.22
