// Entry point of the playground page (placeholder shell until the full app lands): reports the backend.
import { createRoot } from 'react-dom/client';
import { useEffect, useState } from 'react';

function App() {
  const [backend, setBackend] = useState('detecting…');
  useEffect(() => {
    (async () => {
      const adapter = await navigator.gpu?.requestAdapter();
      setBackend(adapter ? `webgpu: ${adapter.info.vendor} / ${adapter.info.architecture}` : 'cpu (WebGPU unavailable)');
    })();
  }, []);
  return (
    <main>
      <h1>ReMA Playground</h1>
      <p data-testid="backend">{backend}</p>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(<App />);
