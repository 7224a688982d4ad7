package corpus;

final class Records {
    sealed interface Shape permits Circle, Square, Rect {}

    record Circle(double r) implements Shape {}

    record Square(int side) implements Shape {
        Square {
            if (side < 0)
                throw new IllegalArgumentException("side " + side);
        }
    }

    record Rect(int w, int h) implements Shape {
        Rect(int s) {
            this(s, s * 2);
        }

        int area() {
            return w * h;
        }
    }

    static double area(Shape s) {
        if (s instanceof Circle c)
            return Math.round(Math.PI * c.r() * c.r() * 100) / 100.0;
        if (s instanceof Square q)
            return q.side() * q.side();
        return ((Rect) s).area();
    }

    static void run() {
        Shape[] shapes = { new Circle(1.5), new Square(4), new Rect(3) };
        StringBuilder sb = new StringBuilder();
        for (Shape s : shapes)
            sb.append(s).append('=').append(area(s)).append(' ');
        Main.out("records", sb.toString().trim());
        Main.out("recordeq", new Rect(2, 3).equals(new Rect(2, 3)) + " " + (new Square(3).hashCode() == new Square(3).hashCode()));
        try {
            new Square(-1);
        } catch (IllegalArgumentException e) {
            Main.out("recordthrow", e.getMessage());
        }
    }
}
