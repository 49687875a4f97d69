package com.example.settlement;

import org.springframework.stereotype.Component;

/** Where a region's orders are summed: a stand-in for the slow query or call a real settlement makes. */
@Component
public class RegionTotals {

    public long totalOf(String region) {
        return region.length() * 1_000L;
    }
}
