//! MaceMC search (placeholder replaced below).
